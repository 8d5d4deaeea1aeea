/// Where a batch's bodies go.
@MainActor
enum DownloadDestination {
    /// Into a folder, each under a name of its own (`-o DIR`, or the current directory).
    case folder(OutputFolder)
    /// The one job's body to exactly this name in the folder (`-O FILE`).
    case file(OutputFolder, name: String)
    /// To standard output as it arrives (`-O -`).
    case standardOutput

    /// The folder files are saved in; nil for standard output.
    var folder: OutputFolder? {
        switch self {
        case .folder(let folder), .file(let folder, _): folder
        case .standardOutput: nil
        }
    }
}
