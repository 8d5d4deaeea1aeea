/// The usage text and the exit status that goes with a usage error.
enum Usage {
    /// The exit status for a command line that cannot run (as BSD's `EX_USAGE` tools use 2).
    static let exitStatus: Int32 = 2

    static let text = """
        usage: courier get [-o DIR] [-j N] [--no-progress] URL...
               courier demo [-o DIR] [-j N] [--no-progress]
               courier --help | --version

        Commands:
          get URL...        fetch every URL concurrently and save each response body to a file in DIR
          demo              start a TestServer on 127.0.0.1 (an ephemeral port), fetch a batch of files
                            and a POST from it the way `get` does, and verify every byte

        Options:
          -o, --output DIR  where to save the files: get, the current directory; demo, a temporary
                            directory removed afterwards (created when missing)
          -j, --jobs N      at most N requests at a time (default 4)
              --no-progress draw no progress bar on standard error
          -h, --help        show this text
              --version     print the version

        A file is named after its URL's last path component ("index.html" when there is none) and
        made unique with " (1)", " (2)", ... before the extension; it appears complete or not at all.
        A response with a status of 400 or above is reported but not saved.

        While it downloads, courier shows its progress on standard error: a bar redrawn in place on
        a terminal, otherwise a plain line at every tenth of the way. The result lines and the summary
        go to standard output, so `courier get URL... > list.txt` keeps a clean list.

        Exit status: 0 when every request finished with a 2xx or 3xx status; 1 when a request failed,
        got a status of 400 or above, or could not be saved; 2 for a usage error.
        """
}
