import Courier
import Foundation

Console.reserveStandardStreams()

// Parse, then hand over to the command. `get` and `demo` run the main queue (their callbacks
// arrive there) and end the process themselves when the last request is done.
do throws(UsageError) {
    switch try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        Console.out(Usage.text)
    case .version:
        Console.out("courier \(courierVersion)")
    case .get(let urls, let options):
        GetCommand(urls: urls, options: options).run()
    case .demo(let options):
        DemoCommand(options: options).run()
    }
} catch {
    if let message = error.message { Console.error("courier: \(message)") }
    Console.error(Usage.text)
    exit(Usage.exitStatus)
}
