// Escaping text for HTML and SVG: the one place the tools turn a label, a
// study name or a server message into markup, so that nothing a study's
// creator typed can become a tag or a script on an analyst's page.
#ifndef LDP_TOOLS_LOADTEST_CORE_MARKUP_H_
#define LDP_TOOLS_LOADTEST_CORE_MARKUP_H_

#include <string>
#include <string_view>

namespace ldp {

// `text` with &, <, >, " and ' replaced by character references; safe in
// element content and in quoted attribute values.
std::string EscapeMarkup(std::string_view text);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_MARKUP_H_
