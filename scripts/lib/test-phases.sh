# scripts/test's phases and test processes: each timed, a summary at the end.
# shellcheck shell=bash

# Logs of the phases run beside others and of each test process; kept when something failed.
TEST_LOGS="$(mktemp -d "${TMPDIR:-/tmp}/pacenote-test.XXXXXX")"
# One line per phase or test process: name|start (s into the run)|seconds|exit status|CPU
# seconds (user and system, of the phase's processes and the children they waited for).
PHASES="$TEST_LOGS/phases"
: >"$PHASES"
RUN_START=$SECONDS
# How many test processes run at once (besides the demo's, which mostly waits).
TEST_JOBS="${PACENOTE_TEST_JOBS:-4}"

# phase NAME CMD...: runs CMD in the foreground (in a subshell, to count its CPU time) and
# records how long it took. The run's length is the CPU all phases need over the two cores:
# the CPU column says where it goes.
phase() {
    local name=$1 start=$SECONDS status=0 cpu
    shift
    echo "=== $name" >&2
    cpu=$(mktemp)
    ( status=0; "$@" || status=$?; times >"$cpu"; exit "$status" ) || status=$?
    echo "$name|$((start - RUN_START))|$((SECONDS - start))|$status|$(cpu_seconds <"$cpu")" >>"$PHASES"
    rm -f "$cpu"
    return "$status"
}

# cpu_seconds: the children's user and system time from `times`' second line ("1m2.5s 0m3.1s").
cpu_seconds() {
    local line
    { read -r _; read -r line; } || { echo 0; return; }
    awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } printf "%d", t }' <<<"$line"
}

# phase_in_background KEY NAME CMD...: `phase` beside what follows, its output in a log;
# phase_wait KEY waits for it; if it failed, prints its log and returns non-zero.
declare -A BACKGROUND=()
phase_in_background() {
    local key=$1 name=$2
    shift 2
    phase "$name" "$@" >"$TEST_LOGS/$key.log" 2>&1 &
    BACKGROUND[$key]=$!
}
phase_wait() {
    wait "${BACKGROUND[$1]}" && return 0
    echo "--- $1 failed:" >&2
    cat "$TEST_LOGS/$1.log" >&2
    return 1
}

# test_shard NAME --filter/--skip REGEX...: one process of the test bundle over part of the
# suite (Swift Testing's --filter and --skip), its output in a log. The bundle is run as
# `swift test` runs it, but not through it: `swift test --skip-build` still opens the build's
# database, which the release build (and each other) hold locked.
test_shard() {
    local name=$1
    shift
    phase "tests: $name" env NO_COLOR=1 .build/debug/PacenotePackageTests.xctest --testing-library swift-testing "$@" \
        >"$TEST_LOGS/$name.log" 2>&1
}

# test_job NAME CMD...: CMD in the background, at most TEST_JOBS at once; test_jobs_wait
# waits for all. Each prints one line when it ends.
JOBS=()
test_job() {
    local name=$1
    shift
    while [ "$(running_jobs)" -ge "$TEST_JOBS" ]; do sleep 1; done
    (
        local start=$SECONDS status=0
        "$@" || status=$?
        echo "$status" >"$TEST_LOGS/$name.status"
        local summary
        summary=$(grep -hE "Test run with [0-9]+ tests?" "$TEST_LOGS/$name.log" 2>/dev/null | tail -1 || true)
        printf '%-12s %s after %4d s  %s\n' "$name" "$([ "$status" = 0 ] && echo passed || echo FAILED)" \
            $((SECONDS - start)) "${summary:-}" >&2
    ) &
    JOBS+=("$name:$!")
}
running_jobs() {
    local job n=0
    for job in "${JOBS[@]}"; do kill -0 "${job##*:}" 2>/dev/null && n=$((n + 1)); done
    echo "$n"
}
test_jobs_wait() {
    local job
    FAILED_JOBS=()
    for job in "${JOBS[@]}"; do
        wait "${job##*:}" || true
        [ "$(cat "$TEST_LOGS/${job%%:*}.status" 2>/dev/null)" = 0 ] || FAILED_JOBS+=("${job%%:*}")
    done
}

# test_summary: what failed, then the phases; returns non-zero if anything failed.
test_summary() {
    local job status=0 name start seconds code
    for job in "${FAILED_JOBS[@]+"${FAILED_JOBS[@]}"}"; do
        # What went wrong: its output without the lines of tests that started or passed.
        echo "=== $job FAILED (its whole output: $TEST_LOGS/$job.log)" >&2
        grep -vE "^(◇|✔) " "$TEST_LOGS/$job.log" >&2 || true
        status=1
    done
    echo "=== phases (start, length and CPU time in seconds, from the start of scripts/test)" >&2
    local cpu total=0
    while IFS='|' read -r name start seconds code cpu; do
        printf '  %-38s %5d %5d %6d  %s\n' "$name" "$start" "$seconds" "${cpu:-0}" "$([ "$code" = 0 ] && echo ok || echo "FAILED ($code)")" >&2
        total=$((total + ${cpu:-0}))
        [ "$code" = 0 ] || status=1
    done < <(sort -t'|' -k2,2n "$PHASES")
    printf '  %-38s %5d %5d %6d\n' "whole run" 0 $((SECONDS - RUN_START)) "$total" >&2
    [ "$status" = 0 ] && rm -rf "$TEST_LOGS"
    return "$status"
}
