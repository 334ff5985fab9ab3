// Lookups and the field reference in Markdown
// (see fields.hpp).
#include "fields.hpp"

#include <iterator>

namespace pmdfwd {

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
