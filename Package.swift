// swift-tools-version: 6.0
// Pacenote: a listening-history logger and dashboard for MPD.
// Data flows one way: MPD / heart-rate sources -> watcher -> core rules -> store -> web.
import PackageDescription

/// Release builds on Linux put each function in a section of its own, so the linker can drop
/// the unused ones and lay out the rest in the order of `scripts/order/pacenote.order`.
let functionSections: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "Pacenote",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pacenote", targets: ["pacenote"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CMPDClient",
            pkgConfig: "libmpdclient",
            providers: [.apt(["libmpdclient-dev"])]
        ),
        // One function GRDB does not offer: process-wide SQLite settings (sqlite3_config).
        .systemLibrary(
            name: "CSQLiteConfig",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // zlib: inflate for reading zip exports (ZipArchive), deflate for the review's card (PNG).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // libcurl, for outgoing HTTP(S): forwarding plays, friends' feeds, hr-feed. Its headers
        // only: PacenoteNet loads the library when it first sends (see the shim), so it is
        // not linked (no pkgConfig, whose flags would add -lcurl).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // libdbus, for BlueZ on the system bus (Bluetooth heart-rate straps). Declared by
        // hand and loaded when the first connection is made (see the shim): not linked, and
        // no pkgConfig, whose flags would add -ldbus-1.
        .systemLibrary(
            name: "CDBus",
            providers: [.apt(["libdbus-1-3"])]
        ),

        // Rubber Band (time-stretching with the pitch kept) and libsndfile (decoding the song,
        // encoding the copy): tempo-matched playback's renders. Declared by hand and loaded when
        // the first song is rendered (see the shims): not linked, and no pkgConfig, whose flags
        // would add -lrubberband -lsndfile (and their libraries at every start).
        .systemLibrary(
            name: "CRubberBand",
            providers: [.apt(["librubberband2"])]
        ),
        .systemLibrary(
            name: "CSndfile",
            providers: [.apt(["libsndfile1"])]
        ),
        // aubio's beat tracker: where the metronome's clicks go ([tempo] click). Declared by hand
        // and loaded when the first song is tracked (see the shim): not linked, and no pkgConfig,
        // whose flags would add -laubio (and its ~130 libraries at every start).
        .systemLibrary(
            name: "CAubio",
            providers: [.apt(["libaubio5"])]
        ),
        // libebur128's EBU R 128 meter: each track's loudness for `pacenote analyze`. Declared by
        // hand and loaded when the first track is measured (see the shim): not linked, and no
        // pkgConfig, whose flags would add -lebur128.
        .systemLibrary(
            name: "CEbur128",
            providers: [.apt(["libebur128-1"])]
        ),

        // The domain: no C, no I/O.
        .target(name: "PacenoteCore", swiftSettings: functionSections),

        // The only importer of SQLite (through GRDB).
        .target(
            name: "PacenoteStore",
            dependencies: [
                "PacenoteCore", "CSQLiteConfig",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the bulk import's hot statements (GRDB owns the handles).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: functionSections
        ),
        // The one write path: each change validated, written in one transaction, announced once.
        .target(name: "PacenoteOperations", dependencies: ["PacenoteCore", "PacenoteStore"], swiftSettings: functionSections),
        // The only importer of libmpdclient.
        .target(
            name: "PacenoteMPD",
            dependencies: [
                "PacenoteCore", "CMPDClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: functionSections
        ),
        // The only importer of libcurl: outgoing requests, off Swift's cooperative pool.
        .target(name: "PacenoteNet", dependencies: ["CCurl"], swiftSettings: functionSections),
        // The only importer of libdbus: BlueZ's objects, a strap's notifications, hr-scan.
        .target(name: "PacenoteBluetooth", dependencies: ["CDBus"], swiftSettings: functionSections),
        // The only importer of Rubber Band, libsndfile, aubio and libebur128: a song rendered at
        // another tempo (with a click on each beat), the bounded cache of the copies, and a
        // track's measured loudness.
        .target(name: "PacenoteTempo", dependencies: ["CRubberBand", "CSndfile", "CAubio", "CEbur128"], swiftSettings: functionSections),
        // The only importer of libmicrohttpd. Public/ is built into it (EmbedPublicPlugin).
        .target(
            name: "PacenoteWeb",
            dependencies: [
                "PacenoteCore", "PacenoteStore", "PacenoteOperations", "CMicroHTTPD", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: functionSections,
            plugins: [.plugin(name: "EmbedPublicPlugin")]
        ),
        // Build tool: Public/ as a generated Swift file, so the binary is self-contained.
        .executableTarget(name: "EmbedPublic"),
        .plugin(name: "EmbedPublicPlugin", capability: .buildTool(), dependencies: ["EmbedPublic"],
                path: "Sources/EmbedPublicPlugin"),
        // Wiring: configuration -> services. What `serve` and the tests both call.
        .target(
            name: "PacenoteApp",
            dependencies: [
                "PacenoteCore", "PacenoteStore", "PacenoteOperations", "PacenoteMPD", "PacenoteWeb", "PacenoteNet", "PacenoteBluetooth",
                "PacenoteTempo", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: functionSections
        ),
        // @main, thin: argument parsing, then PacenoteApp.
        .executableTarget(
            name: "pacenote",
            dependencies: [
                "PacenoteApp", "PacenoteCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // lld, and relative relocations packed (DT_RELR, glibc 2.36+): with the Swift
            // runtime linked in (--static-swift-stdlib) gold's 2.2 MiB relocation table was
            // read whole at every start. Idle on an empty database ~1.5-2 MiB less resident
            // (gold 34.7-35.3 MiB, lld 32.7-32.9, the binary as linked; 36.0 -> 34.5 copied).
            // And no dynamic symbol table of our own 12k symbols (the static stdlib's link
            // arguments ask for -export-dynamic; nothing looks them up by name): another
            // ~1 MiB the loader touched at start (32.7-33.0 -> 31.6-31.8 MiB).
            // The functions a daemon runs first (start, idle, the common requests) laid out
            // together, in the order `scripts/order/make-order` recorded them: the kernel maps
            // code 64 KiB at a time around each page touched ("fault-around"), and the ~2.4 MiB
            // those functions take, spread over the 22 MiB of code, made ~14.6 MiB of it
            // resident when idle; together, ~8 MiB (most of that is in the prebuilt libraries'
            // sections, which cannot be split: the stdlib's 1.5 MiB .text, GRDB's, Foundation's).
            // A function the file does not name (or no longer exists) goes after those it
            // names: the file only moves code, so a stale one costs memory, never behaviour.
            swiftSettings: functionSections,
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                              "-Xlinker", "--no-export-dynamic",
                              "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/order/pacenote.order",
                              "-Xlinker", "--no-warn-symbol-ordering"],
                             .when(platforms: [.linux], configuration: .release)),
            ]
        ),

        // Test support: a private MPD on loopback, sox-generated tracks, the built binary.
        .target(
            name: "PacenoteTestSupport",
            dependencies: ["PacenoteCore"],
            path: "Tests/PacenoteTestSupport"
        ),
        .testTarget(name: "PacenoteCoreTests", dependencies: ["PacenoteCore"]),
        .testTarget(name: "PacenoteBluetoothTests", dependencies: ["PacenoteBluetooth", "CDBus", "PacenoteTestSupport"]),
        .testTarget(
            name: "PacenoteStoreTests",
            dependencies: ["PacenoteStore", "PacenoteCore", "PacenoteTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "PacenoteOperationsTests",
            dependencies: ["PacenoteOperations", "PacenoteStore", "PacenoteCore", "PacenoteTestSupport"]
        ),
        .testTarget(
            name: "PacenoteAppTests",
            dependencies: ["PacenoteApp", "PacenoteCore", "PacenoteTempo", "CRubberBand", "CSndfile", "CAubio", "CEbur128", "PacenoteTestSupport"]
        ),
        .testTarget(
            name: "PacenoteWebTests",
            dependencies: ["PacenoteWeb", "PacenoteCore", "PacenoteOperations", "PacenoteTestSupport"]
        ),
        .testTarget(
            name: "PacenoteEndToEndTests",
            dependencies: ["pacenote", "PacenoteApp", "PacenoteCore", "PacenoteTestSupport"],
            exclude: ["Clients", "Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
