import Foundation

/// What the command line asked for, once parsed.
enum Command: Equatable {
    /// `--help`, `-h`, `help [COMMAND]` or `COMMAND --help`: print the help (of one command).
    case help(command: String?)
    /// `--version`: print courier's version, and libcurl's with its protocols and features.
    case version
    /// `get URL...`: fetch every URL (and those of `-i`) and save each body to a file.
    case get(operands: [String], options: GetOptions)
    /// `post URL`: send a form or a body, print the response.
    case post(url: URL, options: PostOptions)
    /// `s3 SUBCOMMAND ...`: list, copy, remove and presign S3 objects, make and remove buckets.
    case s3(action: S3Action, options: S3CommandOptions)
    /// `page URL`: save a web page with its resources for offline reading.
    case page(url: URL, options: PageOptions)
    /// `demo`: fetch a mixed batch from an in-process `TestServer` and verify the bytes.
    case demo(options: DemoOptions)
    /// `completion bash|zsh`: print a completion script for that shell.
    case completion(shell: String)
    /// `man`: print the manual page.
    case manual
}
