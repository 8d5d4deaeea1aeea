import Foundation

/// Pages with many resources, for the bounds and the queue.
extension WebPageFixture {
    /// `index.html` with `count` images, images/0.png … images/(count-1).png, each its own PNG,
    /// in that order. ``resources`` lists them all: what a request fetches with `maxResources`
    /// of at least `count`; with the default 500, a correct request fetches 500 of them (which
    /// 500 is the request's choice) and refers to the rest by absolute URL.
    static func manyImages(in folder: WebPageSiteFolder, count: Int = 10_000) -> WebPageFixture {
        let images = (0..<count).map { "images/\($0).png" }
        var page = "<!DOCTYPE html>\n<html><head><title>\(count) images</title></head><body>\n"
        for image in images { page += "<img src=\"\(image)\" alt=\"\">\n" }
        page += "</body></html>\n"
        var files: [WebPageFile: Data] = [.page("index.html"): utf8(page)]
        for (number, image) in images.enumerated() { files[.page(image)] = TestPNG.distinct(number) }
        return WebPageFixture(page: "index.html", files: files, resources: Set(images.map(WebPageFile.page)))
    }

    /// `index.html` with `count` resources in turn a stylesheet (mixed/N.css, no url() in it), a
    /// script (mixed/N.js) and an image (mixed/N.png): within the default bounds, all fetched.
    static func mixedResources(in folder: WebPageSiteFolder, count: Int = 200) -> WebPageFixture {
        var head = ""
        var body = ""
        var files: [WebPageFile: Data] = [:]
        var resources: Set<WebPageFile> = []
        for number in 0..<count {
            let file: WebPageFile
            switch number % 3 {
            case 0:
                file = .page("mixed/\(number).css")
                head += "<link rel=\"stylesheet\" href=\"\(file.path)\">\n"
                files[file] = utf8(".r\(number) { margin: \(number)px; }\n")
            case 1:
                file = .page("mixed/\(number).js")
                head += "<script src=\"\(file.path)\"></script>\n"
                files[file] = utf8("window.r\(number) = \(number);\n")
            default:
                file = .page("mixed/\(number).png")
                body += "<img src=\"\(file.path)\" alt=\"\">\n"
                files[file] = TestPNG.distinct(number)
            }
            resources.insert(file)
        }
        files[.page("index.html")] = utf8(
            "<!DOCTYPE html>\n<html><head>\n\(head)</head><body>\n\(body)</body></html>\n")
        return WebPageFixture(page: "index.html", files: files, resources: resources)
    }
}
