import Courier
import Foundation

/// `courier get [OPTIONS] URL...`: downloads every URL, at most `-j` at a time, each straight to
/// a file, prints a line per result and a summary, and exits 0 only if every one was saved.
@MainActor
struct GetCommand {
    let operands: [String]
    var options: GetOptions

    /// Runs the batch on the main queue and exits the process when it is done.
    func run() -> Never {
        var options = options
        let urls: [URL]
        let skipped: [String]
        let destination: DownloadDestination
        do throws(UsageError) {
            try options.request.prepareRun(command: "get")
            (urls, skipped) = try Self.urls(operands, inputFile: options.inputFile)
            destination = try Self.destination(for: options)
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        // As wget does: one bad line of a long list does not hold back the others, but the run
        // does not pass for a success either.
        for line in skipped { Console.error("skipped " + line) }
        let batch = DownloadBatch(jobs: urls.map { FetchJob(url: $0) }, options: options, destination: destination)
        do throws(UsageError) {
            try batch.prepareFeatures()
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        InterruptHandler.install {
            let summary = batch.interrupt()
            let note =
                batch.hasPartialDownloads
                ? "interrupted: partial downloads are kept as NAME.part; run again with -c to resume them"
                : "interrupted"
            batch.reporter.summarize(summary, interruptedWith: note)
            exit(InterruptHandler.exitStatus)
        }
        batch.start { summary in
            batch.reporter.summarize(summary)
            for line in skipped { Console.error("skipped " + line) }
            var status = skipped.isEmpty ? summary.exitStatus : 1
            if let lost = Console.outputFailure {
                Console.error("courier: the result lines were not all written to standard output: \(lost)")
                status = 1
            }
            exit(status)
        }
        // Every request calls back on the main queue; this serves it until `exit`.
        withExtendedLifetime(batch) { dispatchMain() }
    }

    /// The URLs on the command line, then those of `-i FILE`, one a line (blank lines and lines
    /// starting with "#" skipped), and the lines of the file that hold no URL courier can fetch:
    /// "urls.txt, line 3: not an http or https URL: ...". A bad URL on the command line is a
    /// usage error: it was typed just now.
    static func urls(_ operands: [String], inputFile: String?) throws(UsageError) -> (urls: [URL], skipped: [String]) {
        let parsing = ValueParsing(command: "get")
        var urls: [URL] = []
        for operand in operands { urls.append(try parsing.url(operand)) }
        guard let inputFile else { return (urls, []) }
        var skipped: [String] = []
        let data: Data
        if inputFile == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: inputFile) else {
                throw UsageError("-i: cannot read \(inputFile)", command: "get")
            }
            data = contents
        }
        for (number, line) in String(decoding: data, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            do {
                urls.append(try parsing.url(text))
            } catch {
                skipped.append(
                    "\(inputFile == "-" ? "standard input" : inputFile), line \(number + 1): \(error.message)")
            }
        }
        guard !urls.isEmpty else {
            throw UsageError(
                "-i \(inputFile) holds no URLs" + (skipped.first.map { " (\($0))" } ?? ""), command: "get")
        }
        return (urls, skipped)
    }

    /// Where the bodies go, from `-o` and `-O`.
    static func destination(for options: GetOptions) throws(UsageError) -> DownloadDestination {
        do {
            if options.outputFile == "-" { return .standardOutput }
            if let outputFile = options.outputFile {
                let file = URL(fileURLWithPath: outputFile)
                let parent = (outputFile as NSString).deletingLastPathComponent
                let folder = try OutputFolder(path: parent.isEmpty ? "." : parent, overwrites: options.replacesFiles)
                return .file(folder, name: file.lastPathComponent)
            }
            return .folder(try OutputFolder(path: options.outputDirectory ?? ".", overwrites: options.replacesFiles))
        } catch {
            throw UsageError(
                "cannot save into \(options.outputDirectory ?? options.outputFile ?? "."): \(error)",
                command: "get")
        }
    }
}
