import Foundation

/// Where `courier page` saves a page, and how it gets there without anything half-written.
///
/// The page (and, beside it, its resources folder, which WebPageRequest names after it) is
/// written into a hidden staging folder next to the destination. Only once the whole page is
/// done is each entry renamed into place, so a failure or Ctrl-C leaves nothing under the
/// destination's names. A saved copy of the same page is replaced, as `wget -p` and monolith do:
/// running the command again refreshes it.
struct PageDestination {
    /// The name a page is saved under when its URL gives none that reads as an HTML file.
    static let fallbackName = "index.html"

    /// The folder the page (and its resources folder) is renamed into.
    let directory: String
    /// The page's file name in `directory`.
    let fileName: String
    /// The hidden folder the request writes into.
    let stagingDirectory: String

    /// Where the request writes the page: its `downloadDestinationPath`.
    var stagingPath: String { (stagingDirectory as NSString).appendingPathComponent(fileName) }

    /// False for `--single-file -o FILE` with no folder in it: the result line names FILE as typed.
    private let namesDirectory: Bool

    /// The page's final path, as the result line shows it.
    var path: String { namesDirectory ? Self.joined(directory, fileName) : fileName }

    /// The destination for `url` as `output` (`-o`) and `isSingleFile` say: a folder (default
    /// "."), created when missing, or with `--single-file` a file, or `NAME.html` in a folder
    /// that exists or is given with a trailing "/".
    init(url: URL, output: String?, isSingleFile: Bool) throws {
        var isDirectory: ObjCBool = false
        let exists = output.map { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) } ?? false
        if isSingleFile, let output, !output.hasSuffix("/"), !(exists && isDirectory.boolValue) {
            let parent = (output as NSString).deletingLastPathComponent
            directory = parent.isEmpty ? "." : parent
            fileName = (output as NSString).lastPathComponent
            namesDirectory = !parent.isEmpty
        } else {
            directory = output ?? "."
            fileName = Self.fileName(for: url)
            namesDirectory = true
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw SaveError(description: "\(directory) is not a folder") }
        var template = Array(Self.joined(directory, ".courier-page-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw SaveError(description: "cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
        stagingDirectory = String(cString: made)
    }

    /// The page's file name from its URL's last path component, made safe as `courier get`
    /// makes it; `index.html` when that does not end in .html or .htm (a path ending in "/", or
    /// "/about", or "/page.php"), so the saved file opens as HTML.
    static func fileName(for url: URL) -> String {
        let name = OutputFileNamer.baseName(for: url)
        let (stem, fileExtension) = OutputFileNamer.splitExtension(name)
        // The resources folder is "<stem>_files": it too must fit in NAME_MAX.
        guard [".html", ".htm"].contains(fileExtension.lowercased()), !stem.isEmpty,
            stem.utf8.count + "_files".utf8.count <= OutputFileNamer.maxNameBytes
        else { return fallbackName }
        return name
    }

    /// Renames what the request wrote into place, replacing an earlier copy, and removes the
    /// staging folder. Returns the resources folder's final path when there is one.
    func commit() throws -> String? {
        let manager = FileManager.default
        var resourcesFolder: String?
        // The resources first, the page last: a page in place always finds its resources.
        let written = try manager.contentsOfDirectory(atPath: stagingDirectory)
        let entries = written.filter { $0 != fileName } + written.filter { $0 == fileName }
        for entry in entries {
            let staged = (stagingDirectory as NSString).appendingPathComponent(entry)
            let target = Self.joined(directory, entry)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: staged, isDirectory: &isDirectory), isDirectory.boolValue {
                resourcesFolder = target
                // rename(2) replaces an empty folder only: an earlier copy's is moved aside first.
                var targetIsDirectory: ObjCBool = false
                if manager.fileExists(atPath: target, isDirectory: &targetIsDirectory), targetIsDirectory.boolValue {
                    let aside = (stagingDirectory as NSString).appendingPathComponent(".replaced-" + entry)
                    try rename(target, aside)
                }
            }
            try rename(staged, target)
        }
        discard()
        return resourcesFolder
    }

    /// Removes the staging folder and whatever the request wrote into it (or an earlier copy
    /// moved aside). A folder that cannot go is named on standard error: the user finds a hidden
    /// folder beside the destination and is told what it is.
    func discard() {
        do {
            try FileManager.default.removeItem(atPath: stagingDirectory)
        } catch {
            Console.error("courier: could not remove the staging folder \(stagingDirectory): \(error.localizedDescription)")
        }
    }

    private func rename(_ source: String, _ target: String) throws {
        guard Glibc.rename(source, target) == 0 else {
            throw SaveError(description: "cannot create \(target): \(String(cString: strerror(errno)))")
        }
    }

    private static func joined(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
