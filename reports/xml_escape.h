// Text and attribute escaping for the XML-family writers (HTML, SVG,
// JUnit): &, <, >, " and ' become entities; control characters other than
// tab and newline, which XML 1.0 forbids, become U+FFFD.
#ifndef LOCKSIM_REPORTS_XML_ESCAPE_H_
#define LOCKSIM_REPORTS_XML_ESCAPE_H_

#include <string>
#include <string_view>

namespace locksim {

std::string EscapeXml(std::string_view text);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_XML_ESCAPE_H_
