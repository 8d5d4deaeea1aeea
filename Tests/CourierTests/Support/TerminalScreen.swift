/// The lines a terminal shows once `output` has been drawn on it: a carriage return takes the
/// cursor back to the start of its line, where the next characters overwrite what is there;
/// "erase to end of line" (ECMA-48 EL, "\u{1B}[K") blanks the rest of the line; a line feed
/// moves down a line. So a test can compare what a user reads, not the bytes that drew it.
///
/// The `Terminal`'s `[settled …]` markers are left out.
func terminalScreenLines(_ output: String) -> [String] {
    let text = output.replacing(/\[settled [^\]]+\]/, with: "")
    let scalars = Array(text.unicodeScalars)
    var lines: [[Unicode.Scalar]] = [[]]
    var row = 0
    var column = 0
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "\r":
            column = 0
        case "\n":
            // A line feed keeps the column: a cooked terminal gets "\r\n" for "\n" (ONLCR).
            row += 1
            if row == lines.count { lines.append([]) }
        case "\u{1B}" where scalars[index...].starts(with: ["[", "K"]):
            index += 2
            if column < lines[row].count { lines[row].removeSubrange(column...) }
        default:
            while lines[row].count < column { lines[row].append(" ") }
            if column < lines[row].count {
                lines[row][column] = scalar
            } else {
                lines[row].append(scalar)
            }
            column += 1
        }
    }
    return lines.map { String(String.UnicodeScalarView($0)) }
}
