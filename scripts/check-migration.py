#!/usr/bin/env python3
"""Check that Docs/MigratingFromASIHTTPRequest.md has a table row for every ASIHTTPRequest name.

The names come from ASI's condensed reference, ../shared/reference/asi-api.md (next to the repo
checkout). A "name" there is:
  - a backticked ObjC identifier or selector, `+` / `-` and `(type)` annotations dropped:
    `+requestWithURL:usingCache:` -> requestWithURL:usingCache:, `setProgress:(float)` ->
    setProgress:, `+[ASIHTTPRequest clearSession]` -> clearSession;
  - the few ASI names the reference mentions only in prose (PROSE_NAMES: redirectURL ...);
  - an ASI-prefixed type or constant, backticked or not (ASINetworkErrorType,
    ASIConnectionFailureErrorType, ASINoAuthenticationNeededYet), except file names
    (ASIHTTPRequest.h) and two strings that are values rather than names (NOT_NAMES);
  - the members of the enums the reference lists in short form ("ASICachePolicy bitmask —
    UseDefault 0, ..."), spelled as ASI's headers spell them (ASIUseDefaultCachePolicy);
  - the public names of ASI's S3 classes (S3_NAMES) and of ASIWebPageRequest (WEBPAGE_NAMES),
    which the reference describes only in prose.
Header strings, file names, body formats and prose in backticks (`Content-Type: ...`) are not names.

A name is covered when it appears in backticks, `+`/`-` dropped, in the first column of a table
row of the migration guide. Prints the missing names with the reference section they come from
and exits 1; exits 2 when the reference is missing (it never passes without checking).

Docs/.asi-names.txt is a committed copy of the extracted names: when the reference is present the
copy must match it (run with --write-names after the reference changes), so a review shows which
names came or went; `--names Docs/.asi-names.txt` checks against the copy on a checkout without
../shared. CI does not use --names: there the reference is present and is the source of truth.
"""

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO.parent / "shared" / "reference" / "asi-api.md"
GUIDE = REPO / "Docs" / "MigratingFromASIHTTPRequest.md"
NAMES_COPY = REPO / "Docs" / ".asi-names.txt"

# ASI-prefixed words in the reference that are values, not names a program uses.
NOT_NAMES = {
    "ASIHTTPRequestErrorDomain",  # the string value of NetworkRequestErrorDomain
    "ASIHTTPRequestCache",  # the cache's folder name under Caches/
}
# ASI names the reference mentions only in prose, without backticks. Each must still occur in the
# reference (checked), so the list can't outlive it. (Its camelCase words in prose are otherwise
# parameter names, abbreviations of backticked selectors, or the block ivars behind the setters.)
PROSE_NAMES = {"redirectCount", "redirectURL", "removeTemporaryDownloadFile", "maxConcurrentOperationCount"}
# The reference abbreviates one constant in prose; ASI's header spelling is the name.
ALIASES = {"ASIAskServerIfModifiedWhenStale": "ASIAskServerIfModifiedWhenStaleCachePolicy"}
# Enums the reference lists as "Member N, ...": the pattern that finds the list, and how ASI
# spells a member.
ENUMS = [
    (r"ASICachePolicy bitmask — ([^.]*)\.", "ASI{}CachePolicy"),
    (r"ASICacheStoragePolicy — ([^.]*)\.", "ASICache{}CacheStoragePolicy"),
    (r"\(enum: ([^)]*)\)", None),  # ASIPostFormat, spelled below
]
POST_FORMATS = {"Multipart": "ASIMultipartFormDataPostFormat", "URLEncoded": "ASIURLEncodedPostFormat"}

# ASI's S3 classes (Classes/S3/*.h at v1.8.1): the reference describes them only in prose
# (asi-s3-webpage.md), so their public names are listed here, header by header.
S3_NAMES = {
    # ASIS3Request.h
    "ASIS3Request", "accessKey", "secretAccessKey", "sharedAccessKey", "setSharedAccessKey:",
    "sharedSecretAccessKey", "setSharedSecretAccessKey:", "requestScheme", "ASIS3RequestSchemeHTTP",
    "ASIS3RequestSchemeHTTPS", "S3Host", "buildURL", "setDate:", "dateString", "accessPolicy",
    "ASIS3AccessPolicyPrivate", "ASIS3AccessPolicyPublicRead", "ASIS3AccessPolicyPublicReadWrite",
    "ASIS3AccessPolicyAuthenticatedRead", "ASIS3AccessPolicyBucketOwnerRead",
    "ASIS3AccessPolicyBucketOwnerFullControl", "S3Headers", "stringToSignForHeaders:resource:",
    "stringByURLEncodingForS3Path:", "parseResponseXML", "currentXMLElementContent",
    "currentXMLElementStack", "S3ResponseDateFormatter", "S3RequestDateFormatter", "ASIS3ErrorType",
    "ASIS3ResponseErrorType", "ASIS3ResponseParsingFailedType",
    # ASIS3ObjectRequest.h
    "ASIS3ObjectRequest", "requestWithBucket:key:", "requestWithBucket:key:subResource:",
    "PUTRequestForData:withBucket:key:", "PUTRequestForFile:withBucket:key:",
    "DELETERequestWithBucket:key:", "COPYRequestFromBucket:key:toBucket:key:",
    "HEADRequestWithBucket:key:", "bucket", "key", "sourceBucket", "sourceKey", "mimeType",
    "subResource", "storageClass", "ASIS3StorageClassStandard", "ASIS3StorageClassReducedRedundancy",
    # ASIS3BucketRequest.h
    "ASIS3BucketRequest", "requestWithBucket:", "requestWithBucket:subResource:", "PUTRequestWithBucket:",
    "DELETERequestWithBucket:", "prefix", "marker", "maxResultCount", "delimiter", "objects",
    "commonPrefixes", "isTruncated",
    # ASIS3ServiceRequest.h, ASIS3Bucket.h, ASIS3BucketObject.h
    "ASIS3ServiceRequest", "serviceRequest", "buckets", "ASIS3Bucket", "bucketWithOwnerID:ownerName:",
    "name", "creationDate", "ownerID", "ownerName", "ASIS3BucketObject", "objectWithBucket:",
    "lastModified", "ETag", "size", "GETRequest", "PUTRequestWithFile:", "DELETERequest",
}

# ASIWebPageRequest (Classes/ASIWebPageRequest/ASIWebPageRequest.h at v1.8.1), likewise described
# only in prose (asi-s3-webpage.md): its enums and their members, its instance variables (the
# header declares them, as ASIHTTPRequest.h does its own), its two overridable methods and its
# three properties.
WEBPAGE_NAMES = {
    "ASIWebPageRequest", "ASIWebContentType", "ASINotParsedWebContentType", "ASIHTMLWebContentType",
    "ASICSSWebContentType", "ASIURLReplacementMode", "ASIDontModifyURLs", "ASIReplaceExternalResourcesWithData",
    "ASIReplaceExternalResourcesWithLocalURLs", "externalResourceQueue", "resourceList", "doc", "webContentType",
    "parentRequest", "urlReplacementMode", "shouldIgnoreExternalResourceErrors", "contentForExternalURL:",
    "cachePathForRequest:",
}

SELECTOR = re.compile(r"[+-]?[A-Za-z_]\w*(?::(?:\w+:)*)?")
ASI_WORD = re.compile(r'(?<![-\w".<`])ASI[A-Z]\w*\b(?!\.\w|`)')


def normalize(token: str) -> str | None:
    """The name in one backticked token, or None when the token is not a name."""
    token = re.sub(r"^[+-]\[\w+ (\w[\w:]*)\]$", r"\1", token.strip())  # +[Class selector]
    token = re.sub(r"\([^)]*\)", "", token).strip()  # setProgress:(float)
    if not SELECTOR.fullmatch(token):
        return None
    return token.lstrip("+-")


def extract(text: str) -> dict[str, str]:
    """Every name in the reference, mapped to the section heading where it first appears."""
    names: dict[str, str] = {}
    section = "(preamble)"
    for line in text.splitlines():
        heading = re.match(r"#{2,3} (\S+)", line)
        if heading:
            section = heading.group(1)
        found = [n for n in map(normalize, re.findall(r"`([^`\n]+)`", line)) if n]
        found += [w for w in ASI_WORD.findall(line) if w not in NOT_NAMES]
        found += [w for w in sorted(PROSE_NAMES) if re.search(rf"\b{w}\b", line)]
        for name in found:
            names.setdefault(ALIASES.get(name, name), section)
    for name in sorted(PROSE_NAMES - set(names)):
        sys.exit(f"check-migration: {name} is no longer in the reference; drop it from PROSE_NAMES")
    # The enum lists wrap across lines: read them from the whole text.
    flat = " ".join(text.split())
    for pattern, spelling in ENUMS:
        for members in re.findall(pattern, flat):
            for member in re.findall(r"([A-Za-z]+) \d+", members):
                name = spelling.format(member) if spelling else POST_FORMATS[member]
                names.setdefault(name, "B.3" if spelling else "D.")
    for name in sorted(S3_NAMES):
        names.setdefault(name, "S3")
    for name in sorted(WEBPAGE_NAMES):
        names.setdefault(name, "WebPage")
    return names


def covered(guide: str) -> set[str]:
    """The names in the first column of every table row of the guide."""
    names = set()
    for line in guide.splitlines():
        if line.startswith("|") and not re.match(r"\|\s*-", line):
            first = line.split("|")[1]
            names.update(filter(None, map(normalize, re.findall(r"`([^`]+)`", first))))
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--names", type=Path, help="check against this name list, not the reference")
    parser.add_argument("--write-names", action="store_true", help=f"rewrite {NAMES_COPY.name}")
    args = parser.parse_args()

    if args.names:
        names = {n: "(list)" for n in args.names.read_text().split()}
    else:
        if not REFERENCE.is_file():
            print(f"check-migration: {REFERENCE} is missing; cannot check the migration table.", file=sys.stderr)
            print(f"  (on a checkout without ../shared: --names {NAMES_COPY.relative_to(REPO)})", file=sys.stderr)
            return 2
        names = extract(REFERENCE.read_text())
        listed = "".join(f"{n}\n" for n in sorted(names))
        if args.write_names:
            NAMES_COPY.write_text(listed)
        elif not NAMES_COPY.is_file() or NAMES_COPY.read_text() != listed:
            old = set(NAMES_COPY.read_text().split()) if NAMES_COPY.is_file() else set()
            print(f"check-migration: {NAMES_COPY.relative_to(REPO)} is out of date; run with --write-names.")
            for name in sorted(set(names) - old):
                print(f"  + {name}")
            for name in sorted(old - set(names)):
                print(f"  - {name}")
            return 1

    missing = sorted(set(names) - covered(GUIDE.read_text()), key=lambda n: (names[n], n.lower()))
    for name in missing:
        print(f"missing: {name}  ({names[name]})")
    print(f"check-migration: {len(names)} ASI names, {len(names) - len(missing)} in the table, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
