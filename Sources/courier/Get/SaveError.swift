/// Why a response body could not be saved; its description goes on the result line.
struct SaveError: Error, CustomStringConvertible {
    let description: String
}
