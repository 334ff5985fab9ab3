// `pmdctl show xstats` (see renderers.hpp): DPDK's own /ethdev/xstats, one
// block per port.
#include "record_view.hpp"
#include "renderers.hpp"
#include "table.hpp"

namespace pmdctl {

std::string render_xstats(const Json& ports, bool all) {
    std::string out;
    if (ports.is_object())
        for (const auto& [name, xstats] : ports.items()) {
            Table t;
            t.show_header = false;
            t.columns = {{"name", Align::kLeft}, {"value", Align::kRight}};
            size_t hidden = 0;
            if (xstats.is_object())
                for (const auto& [key, value] : xstats.items()) {
                    if (!all && value.is_number() && value == 0) {
                        ++hidden;
                        continue;
                    }
                    t.rows.push_back({"  " + key, scalar_text(value)});
                }
            out += (out.empty() ? "" : "\n") + name + ":\n" + t.render();
            if (hidden)
                out +=
                    "  (" + std::to_string(hidden) + " zero counters hidden; --all shows them)\n";
        }
    return out.empty() ? "no ports\n" : out;
}

}  // namespace pmdctl
