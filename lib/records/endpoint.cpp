// docs/cli.md's table of endpoints (see endpoint.hpp). Pure.
#include "endpoint.hpp"

namespace pmdfwd {

namespace {

std::string answer_text(const Endpoint& e) {
    const std::string record =
        e.schema ? "the `" + std::string(e.schema->name) + "` record" : std::string("?");
    switch (e.shape) {
        case Shape::record:
            return "dict: " + record + ": ";
        case Shape::ids:
            return "array of ";
        case Shape::page:
            return "`{\"total\": n, \"first\": i, \"<field>\": [...]}`, a column per field of " +
                   record + ", row k of each column making row first + k: ";
        case Shape::lines:
            return "array of strings: ";
        case Shape::action:
            return record + ": ";
    }
    return {};
}

}  // namespace

std::string endpoints_markdown(std::span<const Endpoint* const> endpoints) {
    std::string out = "| command | parameter | returns |\n|---|---|---|\n";
    for (const Endpoint* e : endpoints)
        out += "| `" + std::string(e->path) + "` | " + std::string(e->parameter) + " | " +
               answer_text(*e) + std::string(e->returns) + " |\n";
    return out;
}

}  // namespace pmdfwd
