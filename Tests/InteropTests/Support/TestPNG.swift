import Foundation

/// Small valid PNG images for the web-page fixtures: real files a browser decodes (headless
/// Chromium checks that a saved page's images load), each colour a different file, so a test
/// that finds an image's bytes (or their base64) in a rewritten page knows which image it is.
///
/// The image data is a zlib stream of one stored (uncompressed) deflate block: valid for every
/// decoder, and no dependency on zlib for a few dozen bytes.
enum TestPNG {
    /// A `width`×`height` image of one opaque RGB colour.
    static func solid(red: UInt8, green: UInt8, blue: UInt8, width: Int = 2, height: Int = 2) -> Data {
        precondition(width > 0 && height > 0 && width * height <= 4096, "a small image")
        // Each row: filter type 0 (None), then the pixels.
        var pixels: [UInt8] = []
        for _ in 0..<height {
            pixels.append(0)
            for _ in 0..<width { pixels += [red, green, blue] }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header += [8, 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("IDAT", storedZlibStream(pixels))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// Image number `index` (0 ..< 16,777,216) of a series whose members all differ: its colour
    /// is the index's 24 bits, with red's low bit flipped so that image 0 is not black.
    static func distinct(_ index: Int) -> Data {
        precondition((0..<(1 << 24)).contains(index), "24 bits of colour")
        let colour = UInt32(index) ^ 0x01_0000
        return solid(red: UInt8(colour >> 16 & 0xFF), green: UInt8(colour >> 8 & 0xFF), blue: UInt8(colour & 0xFF))
    }

    /// `image/png` as a `data:` URL, for a page that must load an image with no network.
    static func dataURL(_ png: Data) -> String {
        "data:image/png;base64," + png.base64EncodedString()
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData))
    }

    /// RFC 1950 around one RFC 1951 stored block (at most 65,535 bytes).
    private static func storedZlibStream(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 0xFFFF, "one stored block")
        let length = UInt16(data.count)
        // 0x78 0x01: deflate with a 32K window, no dictionary; 0x7801 is a multiple of 31 as
        // the header check requires.
        var stream: [UInt8] = [0x78, 0x01]
        // BFINAL = 1, BTYPE = 00 (stored), then LEN and its complement, little-endian.
        stream += [0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        stream += data
        return stream + bigEndian(adler32(data))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
