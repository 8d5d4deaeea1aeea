import Foundation

/// What the command line asked for, once parsed.
enum Command: Equatable {
    /// `--help`, `-h` or `help`: print the usage and exit 0.
    case help
    /// `--version`: print `courier <version>`.
    case version
    /// `get URL...`: fetch every URL and save each body to a file.
    case get(urls: [URL], options: FetchOptions)
    /// `demo`: fetch a batch from an in-process `TestServer` and verify the bytes.
    case demo(options: FetchOptions)
}
