// Names of units and kinds, lookups, and the field reference in Markdown
// (see fields.hpp).
#include "fields.hpp"

#include <iterator>

namespace pmdfwd {

std::string_view to_string(Unit u) {
    switch (u) {
        case Unit::none:
            return "";
        case Unit::packets:
            return "packets";
        case Unit::bytes:
            return "bytes";
        case Unit::mbufs:
            return "mbufs";
        case Unit::polls:
            return "polls";
        case Unit::events:
            return "events";
        case Unit::records:
            return "records";
        case Unit::datagrams:
            return "datagrams";
        case Unit::calls:
            return "calls";
        case Unit::connections:
            return "connections";
        case Unit::requests:
            return "requests";
        case Unit::cycles:
            return "cycles";
        case Unit::nanoseconds:
            return "ns";
        case Unit::seconds:
            return "s";
        case Unit::permille:
            return "permille";
        case Unit::hertz:
            return "Hz";
    }
    return "?";
}

std::string_view to_string(Kind k) {
    switch (k) {
        case Kind::label:
            return "label";
        case Kind::info:
            return "info";
        case Kind::counter:
            return "counter";
        case Kind::gauge:
            return "gauge";
        case Kind::histogram:
            return "histogram";
    }
    return "?";
}

const Field* RecordSchema::find(std::string_view key) const {
    for (const Field& f : fields)
        if (f.key == key) return &f;
    return nullptr;
}

std::string fields_markdown(const RecordSchema& s, std::string_view paths) {
    std::string out = "### " + std::string(s.name) + ": `" + std::string(paths) + "`\n\n" +
                      std::string(s.about) +
                      "\n\n| field | unit | kind | meaning |\n|---|---|---|---|\n";
    for (const Field& f : s.fields)
        out += "| `" + std::string(f.key) + "` | " + std::string(to_string(f.unit)) + " | " +
               std::string(to_string(f.kind)) + " | " + std::string(f.help) + " |\n";
    return out;
}

std::string histogram_wire_markdown() {
    std::string out = "| key | meaning |\n|---|---|\n";
    for (const auto& k : kHistogramWire)
        out += "| `<field>" + std::string(k.suffix) + "` | " + std::string(k.help) + " |\n";
    return out;
}

}  // namespace pmdfwd
