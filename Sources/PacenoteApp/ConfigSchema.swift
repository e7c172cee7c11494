import PacenoteCore

// How configuration is declared: each `[section]` is one `ConfigSection` value listing its
// keys once — name, documentation, environment variables, flag, how to read and show the
// value, whether it is a secret. The loader (`ConfigLoader`), the printer (`pacenote config`)
// and the example file (`docs/pacenote.example.toml`, checked by a test) all read these
// declarations; the defaults are the initial values of the `Config` structs they fill in.

/// A value as it arrives: from the TOML file, or as text from the environment or a flag.
enum ConfigInput: Sendable {
    case toml(TOMLValue)
    case text(String)

    /// The value as an error message quotes it.
    var quoted: String {
        switch self {
        case .text(let s), .toml(.string(let s)): "\"\(s)\""
        case .toml(.integer(let i)): String(i)
        case .toml(.float(let f)): String(f)
        case .toml(let other): other.kindDescription
        }
    }

    /// The raw text, for masking a secret in messages.
    var text: String? {
        switch self {
        case .text(let s), .toml(.string(let s)): s
        default: nil
        }
    }
}

/// What is wrong with a value. The loader turns it into a `ConfigError` with the key's full
/// name and where the value was set, so a declaration never repeats its own name.
struct ConfigProblem: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// How a secret is kept out of everything printed or logged: the printer, the example file
/// and error messages.
enum ConfigSecret: Sendable {
    case none
    /// The whole value (a password).
    case whole
    /// A password written before the last `@` (MPD_HOST's `password@host`).
    case beforeAt
    /// An address that may carry a credential: `user:password@` or a token in its query
    /// (`URLSecrets`).
    case url

    func mask(_ text: String) -> String {
        switch self {
        case .none: return text
        case .whole: return text.isEmpty ? text : "***"
        case .beforeAt:
            guard !text.hasPrefix("@"), let at = text.lastIndex(of: "@") else { return text }
            return "***" + text[at...]
        case .url: return URLSecrets.masked(text)
        }
    }
}

/// A command-line flag that sets a key; some set several (`--mpd HOST:PORT`).
struct ConfigFlag: Sendable {
    let name: String
    /// Its argument as `--help` and the example file show it: `HOST:PORT`.
    let argument: String
    let value: KeyPath<ConfigFlags, String?> & Sendable
    /// Turns the flag's text into values for keys of the same section; nil: just this key.
    var expand: (@Sendable (String) -> [(key: String, text: String)])?

    init(_ name: String, _ argument: String, _ value: KeyPath<ConfigFlags, String?> & Sendable,
         expand: (@Sendable (String) -> [(key: String, text: String)])? = nil) {
        self.name = name
        self.argument = argument
        self.value = value
        self.expand = expand
    }
}

/// How a value of type `T` is read from the file or text, and written back as TOML.
struct ConfigCodec<T>: Sendable {
    let read: @Sendable (ConfigInput) throws(ConfigProblem) -> T
    /// The value as a TOML literal; nil when unset.
    let show: @Sendable (T) -> String?

    /// The same value, optional: unset is `nil` and is not shown.
    var optional: ConfigCodec<T?> {
        let read = self.read, show = self.show
        return ConfigCodec<T?>(read: { (input) throws(ConfigProblem) -> T? in try read(input) }, show: { $0.flatMap(show) })
    }
}

/// What a key says about itself, apart from its value: what the example file, the printer
/// and the loader's environment and flag steps read.
struct ConfigKeyDeclaration: Sendable {
    let name: String
    /// The comment above the key in the example file; empty to share the previous key's.
    let doc: String
    let environment: [String]
    let flag: ConfigFlag?
    let secret: ConfigSecret
    /// Shown commented out in the example file, for keys unset by default.
    let example: String?
}

/// One key of a section, on the struct `Root` the section fills in.
@dynamicMemberLookup
struct ConfigKey<Root>: Sendable {
    let declared: ConfigKeyDeclaration
    let read: @Sendable (ConfigInput, inout Root) throws(ConfigProblem) -> Void
    let show: @Sendable (Root) -> String?
    /// What is used while the key is unset (the printer shows it as a comment).
    let inEffect: @Sendable (Root) -> String?

    subscript<T>(dynamicMember path: KeyPath<ConfigKeyDeclaration, T>) -> T { declared[keyPath: path] }

    /// - Parameter then: runs after the value is set (a key that clears another).
    init<T>(_ name: String, _ path: WritableKeyPath<Root, T> & Sendable, _ codec: ConfigCodec<T>,
            env: [String] = [], flag: ConfigFlag? = nil, secret: ConfigSecret = .none, example: String? = nil,
            inEffect: @escaping @Sendable (Root) -> String? = { _ in nil },
            then: @escaping @Sendable (inout Root) -> Void = { _ in }, doc: String) {
        self.init(name, get: { $0[keyPath: path] }, set: { $0[keyPath: path] = $1 }, codec, env: env, flag: flag,
                  secret: secret, example: example, inEffect: inEffect, then: then, doc: doc)
    }

    init<T>(_ name: String, get: @escaping @Sendable (Root) -> T, set: @escaping @Sendable (inout Root, T) -> Void,
            _ codec: ConfigCodec<T>, env: [String] = [], flag: ConfigFlag? = nil, secret: ConfigSecret = .none,
            example: String? = nil, inEffect: @escaping @Sendable (Root) -> String? = { _ in nil },
            then: @escaping @Sendable (inout Root) -> Void = { _ in }, doc: String) {
        declared = ConfigKeyDeclaration(name: name, doc: doc, environment: env, flag: flag, secret: secret, example: example)
        let codecRead = codec.read
        read = { (input, root) throws(ConfigProblem) in
            set(&root, try codecRead(input))
            then(&root)
        }
        let codecShow = codec.show
        show = { codecShow(get($0)) }
        self.inEffect = inEffect
    }
}

/// One `[section]` of the file, or a list of `[[section]]` tables.
struct ConfigSection<Root: Sendable>: Sendable {
    let name: String
    /// The comment above the section in the example file.
    let doc: String
    let keys: [ConfigKey<Root>]
    /// Checks that need several keys of the section, after every layer is applied.
    var validate: @Sendable (Root) throws(ConfigError) -> Void = { _ in }
}

/// What makes a section a list (`[[mpd]]`, `[[rules]]`): its element's defaults, the key
/// that tells elements apart, if any, and what each element must say. Whether the list
/// starts with a default element (`[mpd]`) or empty (`[[rules]]`) is the initial value of
/// its `Config` property.
struct ConfigList<Root>: Sendable {
    /// The defaults of the element at an index (the second player is `player2`).
    let element: @Sendable (Int) -> Root
    /// The elements' name in messages: `players`.
    let noun: String
    /// The key whose value must differ between elements; nil when elements may repeat.
    var unique: (key: String, of: @Sendable (Root) -> String)?
    /// Keys every `[[ ]]` table must set.
    var required: [String] = []
    /// What is wrong with an element, naming the key it is about; checked once every layer is
    /// applied, and reported as `rules[2].value` with where that key was set.
    var problem: @Sendable (Root) -> (key: String, message: String)? = { _ in nil }
    /// Completes an element from the file once its table is read, knowing which keys the
    /// table set (a default that depends on other keys).
    var completed: @Sendable (inout Root, _ given: Set<String>) -> Void = { _, _ in }
}

/// A section bound to its place in `Config`, its keys working on the whole configuration:
/// what the loader, the printer and the example file walk.
struct AnyConfigSection: Sendable {
    @dynamicMemberLookup
    struct Key: Sendable {
        let declared: ConfigKeyDeclaration
        /// Reads into the section's table, or the list's element at an index.
        let read: @Sendable (ConfigInput, inout Config, Int) throws(ConfigProblem) -> Void
        let show: @Sendable (Config, Int) -> String?
        let inEffect: @Sendable (Config, Int) -> String?

        subscript<T>(dynamicMember path: KeyPath<ConfigKeyDeclaration, T>) -> T { declared[keyPath: path] }
    }

    /// What a list section adds.
    struct List: Sendable {
        let count: @Sendable (Config) -> Int
        /// Empties the list: the file's `[[ ]]` tables replace the default element.
        let reset: @Sendable (inout Config) -> Void
        let append: @Sendable (inout Config) -> Void
        /// Empty by default (`[[rules]]`): only `[[ ]]` tables make elements (no `[name]`
        /// table), an empty list is allowed, and the example file shows it commented out.
        let startsEmpty: Bool
        let required: [String]
        /// `ConfigList.completed` on the element at an index.
        let complete: @Sendable (inout Config, Int, Set<String>) -> Void
        /// The key whose value must differ between elements, if any.
        let uniqueKey: String?
        let identity: @Sendable (Config, Int) -> String
        let noun: String
    }

    let name: String
    let doc: String
    let keys: [Key]
    let list: List?
    let validate: @Sendable (Config) throws(ConfigError) -> Void

    func key(_ name: String) -> Key? { keys.first { $0.name == name } }

    /// How many tables the section has now: one, or the list's length.
    func count(_ config: Config) -> Int { list?.count(config) ?? 1 }

    /// The key's name in origins and messages: `mpd.host`, the second player's `mpd[2].host`.
    func path(_ key: String, element: Int) -> String {
        element == 0 ? "\(name).\(key)" : listedPath(key, element: element)
    }

    /// The key's name in a `[[list]]`'s messages, the first table's too: `rules[1].value`.
    func listedPath(_ key: String, element: Int) -> String { "\(name)[\(element + 1)].\(key)" }
}

extension ConfigSection {
    /// This section as one table at `path` in `Config`.
    func table(at path: WritableKeyPath<Config, Root> & Sendable) -> AnyConfigSection {
        let validate = self.validate
        return AnyConfigSection(
            name: name, doc: doc,
            keys: keys.map { key in
                key.bound(read: { (input, config, _) throws(ConfigProblem) in try key.read(input, &config[keyPath: path]) },
                          root: { config, _ in config[keyPath: path] })
            },
            list: nil,
            validate: { (config) throws(ConfigError) in try validate(config[keyPath: path]) })
    }

    /// This section as a list of `[[name]]` tables at `path` in `Config`; a single `[name]`
    /// table, the environment and flags set its first element.
    func list(at path: WritableKeyPath<Config, [Root]> & Sendable, _ list: ConfigList<Root>) -> AnyConfigSection {
        let validate = self.validate, name = self.name
        return AnyConfigSection(
            name: name, doc: doc,
            keys: keys.map { key in
                key.bound(read: { (input, config, index) throws(ConfigProblem) in try key.read(input, &config[keyPath: path][index]) },
                          root: { config, index in config[keyPath: path][index] })
            },
            list: AnyConfigSection.List(
                count: { $0[keyPath: path].count },
                reset: { config in config[keyPath: path] = [] },
                append: { config in config[keyPath: path].append(list.element(config[keyPath: path].count)) },
                startsEmpty: Config(databasePath: "")[keyPath: path].isEmpty,
                required: list.required,
                complete: { config, index, given in list.completed(&config[keyPath: path][index], given) },
                uniqueKey: list.unique?.key,
                identity: { config, index in list.unique?.of(config[keyPath: path][index]) ?? String(index) },
                noun: list.noun),
            validate: { (config) throws(ConfigError) in
                for (index, element) in config[keyPath: path].enumerated() {
                    try validate(element)
                    guard let problem = list.problem(element) else { continue }
                    // Where the key was set, else where the table was (its required keys).
                    let origin = ([problem.key] + list.required).lazy.compactMap { key in
                        config.origins[index == 0 ? "\(name).\(key)" : "\(name)[\(index + 1)].\(key)"]
                    }.first { $0 != "default" }
                    throw ConfigError(key: "\(name)[\(index + 1)].\(problem.key)", message: problem.message, origin: origin)
                }
            })
    }
}

extension ConfigKey {
    fileprivate func bound(read: @escaping @Sendable (ConfigInput, inout Config, Int) throws(ConfigProblem) -> Void,
                           root: @escaping @Sendable (Config, Int) -> Root) -> AnyConfigSection.Key {
        let show = self.show, inEffect = self.inEffect
        return AnyConfigSection.Key(declared: declared, read: read, show: { show(root($0, $1)) }, inEffect: { inEffect(root($0, $1)) })
    }
}
