// The byte screen in front of toml++: size, control bytes, UTF-8 validity,
// where non-ASCII text may appear, and key_at_line's best-effort keys.
#include <catch2/catch.hpp>
#include <string>

#include "text_guard.hpp"

using namespace pmdfwd;

namespace {

// "line:column key: message" of the screen's verdict, or "ok".
std::string screen(const std::string& text) {
    const auto e = screen_config_text(text, "g.toml");
    if (!e) return "ok";
    CHECK(e->file == "g.toml");
    return std::to_string(e->line) + ":" + std::to_string(e->column) + " " + e->key + ": " +
           e->message;
}

}  // namespace

TEST_CASE("text guard: plain TOML passes", "[text_guard]") {
    CHECK(screen("") == "ok");
    CHECK(screen("\n\n") == "ok");
    CHECK(screen("[eal]\r\nlcores = \"0-2\"\t# tab and CRLF are fine\r\n") == "ok");
    CHECK(screen("a = 'single'\nb = '''\nmulti ' '' \n'''\nc = \"\"\"\n\"q\" \"\"\n\"\"\"\n") ==
          "ok");
    CHECK(screen("x = [1, [2, 3], { y = \"z\" }]\n[t.u.\"v w\"]\nk = 1979-05-27T07:32:00Z\n") ==
          "ok");
}

TEST_CASE("text guard: control bytes are refused where they are", "[text_guard]") {
    CHECK(screen(std::string("a = 1\n\0", 7)) ==
          "2:1 (document): control byte 0x00 is not allowed in a config");
    CHECK(screen(std::string("[t]\nk = \"x\0\"\n", 12)) ==
          "2:7 t.k: control byte 0x00 is not allowed in a config");
    CHECK(screen("\x01") == "1:1 (document): control byte 0x01 is not allowed in a config");
    CHECK(screen("a = 1 # bell \x07\n") == "1:14 a: control byte 0x07 is not allowed in a config");
    CHECK(screen("a = 1\x7f") == "1:6 a: control byte 0x7f is not allowed in a config");
    CHECK(screen("a = \"\x1b[1m\"") == "1:6 a: control byte 0x1b is not allowed in a config");
    CHECK(screen("a\vb") == "1:2 (document): control byte 0x0b is not allowed in a config");
    CHECK(screen("a\fb") == "1:2 (document): control byte 0x0c is not allowed in a config");
}

TEST_CASE("text guard: invalid UTF-8 is refused at its first byte", "[text_guard]") {
    CHECK(screen("# \xC0\xAF") == "1:3 (document): invalid UTF-8 byte 0xc0");      // overlong '/'
    CHECK(screen("# \xC1\xBF") == "1:3 (document): invalid UTF-8 byte 0xc1");      // overlong
    CHECK(screen("# \xE0\x80\xAF") == "1:3 (document): invalid UTF-8 byte 0xe0");  // overlong 3
    CHECK(screen("# \xF0\x80\x80\xAF") == "1:3 (document): invalid UTF-8 byte 0xf0");  // overlong 4
    CHECK(screen("a = \"\xED\xA0\x80\"") == "1:6 a: invalid UTF-8 byte 0xed");         // U+D800
    CHECK(screen("a = \"\xED\xBF\xBF\"") == "1:6 a: invalid UTF-8 byte 0xed");         // U+DFFF
    CHECK(screen("a = \"\xF4\x90\x80\x80\"") == "1:6 a: invalid UTF-8 byte 0xf4");     // > U+10FFFF
    CHECK(screen("a = \"\xE2\x82\"") == "1:6 a: invalid UTF-8 byte 0xe2");     // cut before '"'
    CHECK(screen("# \xE2\x82") == "1:3 (document): invalid UTF-8 byte 0xe2");  // cut at the end
    CHECK(screen("# \xF0\x9F\x98") == "1:3 (document): invalid UTF-8 byte 0xf0");
    CHECK(screen("# \x80") == "1:3 (document): invalid UTF-8 byte 0x80");  // lone continuation
    CHECK(screen("# \xFF") == "1:3 (document): invalid UTF-8 byte 0xff");
    CHECK(screen("# \xF8\x88\x80\x80\x80") == "1:3 (document): invalid UTF-8 byte 0xf8");
    // The largest valid sequences of each length pass.
    CHECK(
        screen("# \xC2\x80 \xDF\xBF \xE0\xA0\x80 \xEF\xBF\xBF \xF0\x90\x80\x80 \xF4\x8F\xBF\xBF") ==
        "ok");
}

TEST_CASE("text guard: columns count code points, lines count newlines", "[text_guard]") {
    // "é" and "€" are one column each, so the NUL is at column 9 on line 3.
    CHECK(screen(std::string("\n\n# \xC3\xA9\xE2\x82\xAC abc\0", 15)) ==
          "3:9 (document): control byte 0x00 is not allowed in a config");
    CHECK(screen("a = \"\xF0\x9F\x98\x80\" # \xFF") == "1:11 a: invalid UTF-8 byte 0xff");
}

TEST_CASE("text guard: size limit", "[text_guard]") {
    CHECK(screen(std::string(kMaxConfigBytes, '\n')) == "ok");
    CHECK(screen(std::string(kMaxConfigBytes + 1, '\n')) ==
          "1:1 (document): file is larger than 1048576 bytes");
}

TEST_CASE("text guard: a leading byte order mark is skipped, not counted", "[text_guard]") {
    CHECK(screen("\xEF\xBB\xBF[eal]\nlcores = \"0\"\n") == "ok");
    CHECK(screen("\xEF\xBB\xBF\x01") ==
          "1:1 (document): control byte 0x01 is not allowed in a config");
    CHECK(screen("a = 1\n\xEF\xBB\xBF") ==
          "2:1 (document): non-ASCII character outside a string or comment");
    CHECK(key_at_line("\xEF\xBB\xBF[pool]\nmbufs = 1\n", 2) == "pool.mbufs");
}

TEST_CASE("text guard: non-ASCII text only in string values and comments", "[text_guard]") {
    // Allowed: values of every string kind, in arrays and inline tables, and comments.
    CHECK(screen("# \xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82\na = \"caf\xC3\xA9\"\n") ==
          "ok");
    CHECK(screen("a = 'caf\xC3\xA9'\nb = '''\n\xC3\xA9\n'''\nc = \"\"\"\n\xC3\xA9 \\t\n\"\"\"\n") ==
          "ok");
    CHECK(screen("a = [\"\xC3\xA9\", '\xC3\xA9', [\"\xC3\xA9\"]]\nb = { c = \"\xC3\xA9\", d = "
                 "['\xC3\xA9'] }\n") == "ok");
    CHECK(screen("a = [\n  \"x\", # \xC3\xA9\n  \"\xC3\xA9\",\n]\n") == "ok");
    CHECK(screen("a = \"\\\"\xC3\xA9\" # \"\xC3\xA9\n") == "ok");   // escaped quote stays inside
    CHECK(screen("a = \"\"\"x\\\n   y \xC3\xA9\"\"\"\n") == "ok");  // after the continuation ends
    CHECK(screen("a = \"\"\"x\"\"\xC3\xA9\"\"\"\"\n") == "ok");     // quote runs are content

    // Refused: bare structure.
    CHECK(screen("a\xC2\xA0= 1\n") ==
          "1:2 (document): non-ASCII character outside a string or comment");
    CHECK(screen("a = 1\xE3\x80\x80\n") ==
          "1:6 a: non-ASCII character outside a string or comment");
    CHECK(screen("\xC3\xA9t\xC3\xA9 = 1\n") ==
          "1:1 (document): non-ASCII character outside a string or comment");
    CHECK(screen("a = \"x\"\xC3\xA9\n") ==
          "1:8 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = \"\"\"x\"\"\"\xC3\xA9\n") ==
          "1:12 a: non-ASCII character outside a string or comment");
    // Refused: quoted keys, in every place a key goes.
    CHECK(screen("\"\xC3\xA9\" = 1\n") ==
          "1:2 (document): non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("'\xC3\xA9' = 1\n") ==
          "1:2 (document): non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("[\"\xC3\xA9\"]\n") ==
          "1:3 (document): non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("[[a.'\xC3\xA9']]\n") ==
          "1:6 (document): non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("a.\"\xC3\xA9\".b = 1\n") ==
          "1:4 (document): non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("t = { a = 1, \"\xC3\xA9\" = 2 }\n") ==
          "1:15 t: non-ASCII character in a quoted key (keys are ASCII)");
    CHECK(screen("t = [{ \"\xC3\xA9\" = 2 }]\n") ==
          "1:9 t: non-ASCII character in a quoted key (keys are ASCII)");
    // Refused: the two places toml++ tests string content for whitespace.
    CHECK(screen("a = \"\"\"\\\xC3\xA9\"\"\"\n") ==
          "1:9 a: non-ASCII character after a backslash in a \"\"\" string (use a \\u escape)");
    CHECK(screen("a = \"\"\"x\\  \n\n \t\xC3\xA9\"\"\"\n") ==
          "3:3 a: non-ASCII character right after a line-ending backslash in a \"\"\" string");
    CHECK(screen("a = \"\"\"x\\ \xC3\xA9\"\"\"\n") ==
          "1:11 a: non-ASCII character right after a line-ending backslash in a \"\"\" string");
    // A backslash in a single-line string is an ordinary (invalid) escape for toml++.
    CHECK(screen("a = \"\\\xC3\xA9\"\n") == "ok");
}

TEST_CASE("text guard: a bare value runs to a value terminator, quotes and all", "[text_guard]") {
    // toml++ scans a malformed number, date or boolean up to whitespace, ']',
    // '}', ',' or '#', so a quote inside one does not start a string.
    CHECK(screen("a = 1\"\xC3\xA9\"\n") ==
          "1:7 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = 00:01:00:0p:x=\"\xEF\xBB\xB5\"\n") ==
          "1:20 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = tru'\xC3\xA9'\n") ==
          "1:9 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = [1\"\xC3\xA9\"]\n") ==
          "1:8 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = { b = 1\"\xC3\xA9\" }\n") ==
          "1:13 a: non-ASCII character outside a string or comment");
    CHECK(screen("a = 1979-05-27 07:32:00\"\xC3\xA9\"\n") ==
          "1:25 a: non-ASCII character outside a string or comment");
    // Terminators end the bare value; what follows is read as usual.
    CHECK(screen("a = [1,\"\xC3\xA9\"]\nb = { c = 1, d = \"\xC3\xA9\" }\nc = 1 # \xC3\xA9\n") ==
          "ok");
    CHECK(screen("a = [\n  1\n  ,\"\xC3\xA9\"\n]\n") == "ok");
    CHECK(screen("a = 1979-05-27 07:32:00 # \xC3\xA9\n") == "ok");
}

TEST_CASE("text guard: a table header's '[' must be followed by a name", "[text_guard]") {
    CHECK(screen("[=") == "1:2 (document): expected a table name after '['");
    CHECK(screen("a = 1\n[\nb = 2\n") == "2:2 (document): expected a table name after '['");
    CHECK(screen("[\r\n") == "1:2 (document): expected a table name after '['");
    CHECK(screen("[[#") == "1:3 (document): expected a table name after '['");
    CHECK(screen("[[ \t.a]]") == "1:5 (document): expected a table name after '['");
    CHECK(screen("[[[a]]]") == "1:3 (document): expected a table name after '['");
    CHECK(screen("[ [ {") == "1:5 (document): expected a table name after '['");
    // Names, and the errors toml++ reports well by itself, pass.
    for (const char* ok : {"[a]", "[ a ]", "[\ta]", "[\"a b\"]", "['a']", "[[a]]", "[[ a ]]",
                           "[A-b_9]", "[]", "[[]]", "[a.=]", "[ [a]]", "[", "[[", "[ "}) {
        INFO(ok);
        CHECK(screen(ok) == "ok");
    }
    // Arrays are not headers.
    CHECK(screen("a = [=]\nb = [\n]\nc = [[#\n]]\n") == "ok");
}

TEST_CASE("text guard: keys of more than 16 dotted parts", "[text_guard]") {
    std::string key = "k";
    for (int i = 1; i < 16; ++i) key += ".k";  // 16 parts
    CHECK(screen(key + " = 1\n") == "ok");
    CHECK(screen("[" + key + "]\n") == "ok");
    CHECK(screen("[[" + key + "]]\n") == "ok");
    CHECK(screen("t = { " + key + " = 1, " + key + " = 2 }\n") == "ok");
    CHECK(screen(key + ".k = 1\n") == "1:32 " + key + ".k: a key has more than 16 dotted parts");
    CHECK(screen("\n[" + key + ".k]\n") ==
          "2:33 " + key + ".k: a key has more than 16 dotted parts");
    CHECK(screen("t = { a = 1, " + key + ".k = 2 }\n") ==
          "1:45 t: a key has more than 16 dotted parts");
    // Quoted dots and dots in values are not key dots.
    CHECK(screen("\"" + key + ".k\" = 1\n") == "ok");
    CHECK(screen("a = 1.5\nb = [" + std::string(40, '1') +
                 ".5]\nc = 1.2.3.4.5.6.7.8.9.1.2.3.4.5.6.7.8.9\n") == "ok");
    CHECK(screen("a = \"" + key + ".k\"\n") == "ok");
}

TEST_CASE("text guard: strings do not leak past their line or delimiters", "[text_guard]") {
    // An unterminated single-line string ends at the newline (toml++ reports it).
    CHECK(screen("a = \"x\n\xC3\xA9 = 1\n") ==
          "2:1 (document): non-ASCII character outside a string or comment");
    // A '#' inside a string is not a comment.
    CHECK(screen("a = \"#\"\xC3\xA9\n") ==
          "1:8 a: non-ASCII character outside a string or comment");
    // Five quotes close a """ string, two of them content.
    CHECK(screen("a = \"\"\"x\"\"\"\"\"\xC3\xA9\n") ==
          "1:14 a: non-ASCII character outside a string or comment");
    // '''-strings have no escapes.
    CHECK(screen("a = '''\\'''\xC3\xA9\n") ==
          "1:12 a: non-ASCII character outside a string or comment");
    // A table header ends at its line even when left open.
    CHECK(screen("[t\n\"\xC3\xA9\" = 1\n") ==
          "2:2 t: non-ASCII character in a quoted key (keys are ASCII)");
}

TEST_CASE("key_at_line: tables, array tables, keys and values that span lines", "[text_guard]") {
    const std::string text = R"(top = 1
[eal]
lcores = "0-2"   # comment = not a key
[[port]]
name = "a"
[[port]]  # second
name = "b"
  mtu=9000
[port.extra]
x = 1
[forward]
pairs = [
  ["a", "b"],
  ["b", "a"],
]
note = """
[not.a.table]
k = v
"""

# comment line
[forward.next_hop_mac]
a = "02:00:00:00:00:01"
[[  spaced  ]]
[cut
)";
    CHECK(key_at_line(text, 1) == "top");
    CHECK(key_at_line(text, 2) == "eal");
    CHECK(key_at_line(text, 3) == "eal.lcores");
    CHECK(key_at_line(text, 4) == "port[0]");
    CHECK(key_at_line(text, 5) == "port[0].name");
    CHECK(key_at_line(text, 6) == "port[1]");
    CHECK(key_at_line(text, 7) == "port[1].name");
    CHECK(key_at_line(text, 8) == "port[1].mtu");
    CHECK(key_at_line(text, 9) == "port[1].extra");
    CHECK(key_at_line(text, 10) == "port[1].extra.x");
    CHECK(key_at_line(text, 12) == "forward.pairs");
    CHECK(key_at_line(text, 13) == "forward.pairs");
    CHECK(key_at_line(text, 15) == "forward.pairs");
    CHECK(key_at_line(text, 17) == "forward.note");
    CHECK(key_at_line(text, 18) == "forward.note");
    CHECK(key_at_line(text, 19) == "forward.note");
    CHECK(key_at_line(text, 20) == "forward");
    CHECK(key_at_line(text, 21) == "forward");
    CHECK(key_at_line(text, 23) == "forward.next_hop_mac.a");
    CHECK(key_at_line(text, 24) == "spaced[0]");
    CHECK(key_at_line(text, 25) == "cut");
    CHECK(key_at_line(text, 99) == "cut");
    CHECK(key_at_line("", 1) == "(document)");
    CHECK(key_at_line("# nothing\n", 1) == "(document)");
    CHECK(key_at_line("a=1\r\nb = 2\r\n", 2) == "b");
    CHECK(key_at_line("[]\nk = 1\n", 2) == "k");
}
