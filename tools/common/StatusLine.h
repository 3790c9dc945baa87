//===- StatusLine.h - A one-line status on a terminal ------------*- C++ -*-===//
//
// The progress line of tessel-bench and tessel-compile: each show() rewrites
// the line in place (a carriage return, the text clipped to 79 columns,
// blanks over what is left of the previous text), clear() erases it. The
// callers decide when to draw (only on a terminal, at most so often);
// header-only, so that the compiler tool uses it without the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_COMMON_STATUSLINE_H
#define TESSEL_TOOLS_COMMON_STATUSLINE_H

#include <ostream>
#include <string>

namespace tessel::tools {

class StatusLine {
public:
  explicit StatusLine(std::ostream &os) : os(os) {}

  void show(std::string text) {
    if (text.size() > 79)
      text.resize(79);
    size_t pad = width > text.size() ? width - text.size() : 0;
    os << "\r" << text << std::string(pad, ' ') << std::flush;
    width = text.size();
  }

  /// Erases the line (nothing when none is shown).
  void clear() {
    if (width == 0)
      return;
    os << "\r" << std::string(width, ' ') << "\r" << std::flush;
    width = 0;
  }

private:
  std::ostream &os;
  size_t width = 0; ///< characters of the line on screen
};

} // namespace tessel::tools

#endif // TESSEL_TOOLS_COMMON_STATUSLINE_H
