// libxml2's HTML parser, for WebPageRequest: it reads tag soup (any case, unclosed elements,
// attributes without quotes) as browsers do, which FoundationXML on Linux does not offer.
#ifndef COURIER_CLIBXML2_SHIM_H
#define COURIER_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, and its encoding.h then includes ICU's <unicode/ucnv.h>, whose
// declarations clash with the ICU module Foundation carries (`UErrorCode` defined twice). Only
// the layout of xmlCharEncodingHandler (two ICU converter pointers at its end) depends on it,
// and Courier never reads one: so the version header is taken first and ICU left out of the rest.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/parser.h>

#endif
