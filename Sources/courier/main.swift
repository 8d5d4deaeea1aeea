import Courier
import Foundation

Console.reserveStandardStreams()
// Past `ulimit -f`, write(2) then fails with EFBIG and the transfer says "file too large";
// SIGXFSZ's default would kill courier with a core dump and no word about which file.
signal(SIGXFSZ, SIG_IGN)

// Parse, then hand over to the command. `get`, `post`, `s3`, `page` and `demo` run the main queue (their
// callbacks arrive there) and end the process themselves when the last request is done.
do throws(UsageError) {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var defaultsNotes: [String] = []
    if arguments.first == "get" {
        let defaults = try DefaultOptions.apply(
            toGet: arguments.dropFirst(), environment: ProcessInfo.processInfo.environment)
        arguments = ["get"] + defaults.arguments
        defaultsNotes = defaults.notes
    }
    switch try CommandLineParser.parse(arguments) {
    case .help(let command):
        Console.out(HelpText.text(for: command))
    case .version:
        Console.out(VersionText.text)
    case .completion(let shell):
        Console.out(CompletionScript.script(for: shell) ?? "")
    case .manual:
        Console.out(ManPage.text)
    case .get(let operands, var options):
        options.defaultsNotes = defaultsNotes
        GetCommand(operands: operands, options: options).run()
    case .post(let url, let options):
        PostCommand(url: url, options: options).run()
    case .s3(let action, let options):
        S3Command(action: action, options: options).run()
    case .page(let url, let options):
        PageCommand(url: url, options: options).run()
    case .demo(let options):
        DemoCommand(options: options).run()
    }
} catch {
    Console.error("courier: \(error.message)")
    Console.error(error.pointer)
    exit(HelpText.usageExitStatus)
}
