/// What a command's options have in common: the flags they read, and reading one.
protocol CommandOptions {
    /// Every flag the command takes, `-h` included, in the order its help lists them.
    static var allSpecs: [OptionSpec] { get }
    /// The defaults.
    init()
    /// Takes one flag of `allSpecs` (but `-h`); false when it is none of the command's.
    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool
}

extension GetOptions: CommandOptions {}
extension PostOptions: CommandOptions {}
extension DemoOptions: CommandOptions {}
extension S3CommandOptions: CommandOptions {}
extension PageOptions: CommandOptions {}
