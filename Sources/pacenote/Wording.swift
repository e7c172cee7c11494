/// "1 play", "2 plays": counts in the commands' output (issue 52: "(1 plays)").
func counted(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
