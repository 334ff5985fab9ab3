// One record of the control plane: the values of a record kind's fields
// (record_schemas.hpp), set by FieldId, so a record holds no key its table
// lacks and lists its fields in table order. Unset fields are left out.
// What every control command returns and what the shutdown log prints. Pure.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fields.hpp"
#include "histogram.hpp"

namespace pmdfwd {

// A value as it goes on the wire: a number, a text, or an array of numbers.
using WireValue = std::variant<uint64_t, std::string, std::vector<uint64_t>>;

class Record {
  public:
    explicit Record(const RecordSchema& schema) : schema_(&schema), values_(schema.fields.size()) {}

    void set(FieldId f, uint64_t v) { values_[f.index] = v; }
    void set(FieldId f, std::string v) { values_[f.index] = std::move(v); }
    void set(FieldId f, const char* v) { values_[f.index] = std::string(v); }
    void set(FieldId f, HistogramView v) { values_[f.index] = std::move(v); }
    // Fields that follow `first` in the table, such as a group's members.
    static FieldId next(FieldId first, size_t i) { return FieldId{uint16_t(first.index + i)}; }

    const RecordSchema& schema() const { return *schema_; }
    // A field's value; nullptr when it is unset or of another type.
    const uint64_t* number(FieldId f) const { return std::get_if<uint64_t>(&values_[f.index]); }
    const std::string* text(FieldId f) const { return std::get_if<std::string>(&values_[f.index]); }
    const HistogramView* histogram(FieldId f) const {
        return std::get_if<HistogramView>(&values_[f.index]);
    }

    // Every set field in table order, as (key, value) pairs on the wire: a
    // histogram field `h` as the keys h_count ... h_buckets (kHistogramWire).
    template <class Fn>
    void for_each_wire(Fn&& fn) const {
        for (size_t i = 0; i < values_.size(); ++i) {
            const std::string_view key = schema_->fields[i].key;
            if (const auto* u = std::get_if<uint64_t>(&values_[i]))
                fn(key, WireValue(*u));
            else if (const auto* s = std::get_if<std::string>(&values_[i]))
                fn(key, WireValue(*s));
            else if (const auto* h = std::get_if<HistogramView>(&values_[i]))
                for_each_histogram_key(key, *h, fn);
        }
    }
    // The value of one wire key; nullopt when it is not set.
    std::optional<WireValue> get(std::string_view wire_key) const;
    // "name=value name=value", for log lines (arrays as a,b,c).
    std::string to_line() const;

    template <class Fn>
    static void for_each_histogram_key(std::string_view key, const HistogramView& h, Fn&& fn) {
        for (size_t i = 0; i < std::size(kHistogramWire); ++i)
            fn(std::string(key) + std::string(kHistogramWire[i].suffix),
               histogram_wire_value(h, i));
    }
    // The value of kHistogramWire[i] for h.
    static WireValue histogram_wire_value(const HistogramView& h, size_t i);

  private:
    using Value = std::variant<std::monostate, uint64_t, std::string, HistogramView>;
    const RecordSchema* schema_;
    std::vector<Value> values_;
};

}  // namespace pmdfwd
