#include "referee/service/view_delta.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace pyramid {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// The field of Observation's `game` oneof that `o` sets, or null.
const FieldDescriptor* GameField(const v1::Observation& o) {
  return o.GetReflection()->GetOneofFieldDescriptor(
      o, v1::Observation::descriptor()->FindOneofByName("game"));
}

// Whether `a` and `b` hold the same fields: the same bytes (views have no
// maps, whose order could differ, and no floating point). Faster than
// MessageDifferencer by far, which the viewer and every watched move paid.
bool SameMessage(const Message& a, const Message& b) {
  const size_t size = a.ByteSizeLong();
  if (b.ByteSizeLong() != size) return false;
  thread_local std::string a_bytes, b_bytes;
  a_bytes.resize(size);
  b_bytes.resize(size);
  a.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(a_bytes.data()));
  b.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(b_bytes.data()));
  return a_bytes == b_bytes;
}

// Whether scalar field `f` is the same in `a` and `b`, read with `get` (or
// element `i`, with `get_repeated`, when it is repeated).
template <typename T>
bool SameScalar(
    const Message& a, const Message& b, const FieldDescriptor* f, int i,
    T (Reflection::*get)(const Message&, const FieldDescriptor*) const,
    T (Reflection::*get_repeated)(const Message&, const FieldDescriptor*, int)
        const) {
  const Reflection* r = a.GetReflection();
  return f->is_repeated()
             ? (r->*get_repeated)(a, f, i) == (r->*get_repeated)(b, f, i)
             : (r->*get)(a, f) == (r->*get)(b, f);
}

// Whether field `f` is the same in `a` and `b`: element `i` of it when it
// is repeated, its value otherwise.
bool SameValue(const Message& a, const Message& b, const FieldDescriptor* f,
               int i) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Reflection* r = a.GetReflection();
      return f->is_repeated()
                 ? SameMessage(r->GetRepeatedMessage(a, f, i),
                               r->GetRepeatedMessage(b, f, i))
                 : SameMessage(r->GetMessage(a, f), r->GetMessage(b, f));
    }
    case FieldDescriptor::CPPTYPE_INT32:
      return SameScalar(a, b, f, i, &Reflection::GetInt32,
                        &Reflection::GetRepeatedInt32);
    case FieldDescriptor::CPPTYPE_INT64:
      return SameScalar(a, b, f, i, &Reflection::GetInt64,
                        &Reflection::GetRepeatedInt64);
    case FieldDescriptor::CPPTYPE_UINT32:
      return SameScalar(a, b, f, i, &Reflection::GetUInt32,
                        &Reflection::GetRepeatedUInt32);
    case FieldDescriptor::CPPTYPE_UINT64:
      return SameScalar(a, b, f, i, &Reflection::GetUInt64,
                        &Reflection::GetRepeatedUInt64);
    case FieldDescriptor::CPPTYPE_BOOL:
      return SameScalar(a, b, f, i, &Reflection::GetBool,
                        &Reflection::GetRepeatedBool);
    case FieldDescriptor::CPPTYPE_ENUM:
      return SameScalar(a, b, f, i, &Reflection::GetEnumValue,
                        &Reflection::GetRepeatedEnumValue);
    case FieldDescriptor::CPPTYPE_STRING:
      return SameScalar(a, b, f, i, &Reflection::GetString,
                        &Reflection::GetRepeatedString);
    default:  // Floating point never appears in a view; never "the same".
      return false;
  }
}

enum class Change { kNone, kAppended, kCleared, kWhole };

// How field `f` of the game message went from `before` to `after`.
Change HowChanged(const Message& before, const Message& after,
                  const FieldDescriptor* f) {
  const Reflection* r = after.GetReflection();
  if (!f->is_repeated()) {
    if (!r->HasField(after, f)) {
      return r->HasField(before, f) ? Change::kCleared : Change::kNone;
    }
    if (!r->HasField(before, f)) return Change::kWhole;
    return SameValue(before, after, f, -1) ? Change::kNone : Change::kWhole;
  }
  const int old_size = r->FieldSize(before, f);
  const int new_size = r->FieldSize(after, f);
  if (new_size == 0) return old_size == 0 ? Change::kNone : Change::kCleared;
  if (new_size < old_size) return Change::kWhole;
  for (int i = 0; i < old_size; ++i) {
    if (!SameValue(before, after, f, i)) return Change::kWhole;
  }
  if (old_size == 0) return Change::kWhole;  // Whole and appended coincide.
  return new_size == old_size ? Change::kNone : Change::kAppended;
}

// Drops the first `n` elements of repeated field `f`.
void DropFront(Message* m, const FieldDescriptor* f, int n) {
  const Reflection* r = m->GetReflection();
  const int size = r->FieldSize(*m, f);
  for (int i = 0; i + n < size; ++i) r->SwapElements(m, f, i, i + n);
  for (int i = 0; i < n; ++i) r->RemoveLast(m, f);
}

}  // namespace

v1::ViewDelta DiffViews(const v1::Observation& before,
                        const v1::Observation& after, uint64_t decision_id) {
  v1::ViewDelta delta;
  delta.set_decision_id(decision_id);
  v1::Observation* changed = delta.mutable_changed();
  *changed = after;  // Then everything unchanged is taken out of it.
  const FieldDescriptor* game = GameField(after);
  if (game == nullptr || GameField(before) != game) return delta;
  const Reflection* r = before.GetReflection();
  const Message& old_game = r->GetMessage(before, game);
  const Message& new_game = r->GetMessage(after, game);
  Message* sent = r->MutableMessage(changed, game);
  const google::protobuf::Descriptor* type = new_game.GetDescriptor();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* f = type->field(i);
    switch (HowChanged(old_game, new_game, f)) {
      case Change::kNone:
        sent->GetReflection()->ClearField(sent, f);
        break;
      case Change::kCleared:
        delta.add_cleared(f->number());
        break;
      case Change::kAppended:
        DropFront(sent, f, old_game.GetReflection()->FieldSize(old_game, f));
        delta.add_appended(f->number());
        break;
      case Change::kWhole:
        break;
    }
  }
  return delta;
}

absl::Status ApplyViewDelta(const v1::ViewDelta& delta, v1::Observation* view) {
  const FieldDescriptor* game = GameField(delta.changed());
  if (game == nullptr) {
    return absl::InvalidArgumentError("the delta names no game");
  }
  if (GameField(*view) != game) {
    view->Clear();
    view->set_public_view(delta.changed().public_view());
  }
  const Reflection* r = view->GetReflection();
  Message* held = r->MutableMessage(view, game);
  const Message& sent = r->GetMessage(delta.changed(), game);
  const google::protobuf::Descriptor* type = held->GetDescriptor();
  const Reflection* g = held->GetReflection();
  auto field = [&](uint32_t number) -> absl::StatusOr<const FieldDescriptor*> {
    const FieldDescriptor* f =
        type->FindFieldByNumber(static_cast<int>(number));
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(type->full_name(), " has no field ", number));
    }
    return f;
  };
  for (uint32_t number : delta.cleared()) {
    absl::StatusOr<const FieldDescriptor*> f = field(number);
    if (!f.ok()) return f.status();
    g->ClearField(held, *f);
  }
  std::vector<const FieldDescriptor*> appended;
  for (uint32_t number : delta.appended()) {
    absl::StatusOr<const FieldDescriptor*> f = field(number);
    if (!f.ok()) return f.status();
    if (!(*f)->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot append to ", (*f)->full_name(), ", which is not repeated"));
    }
    appended.push_back(*f);
  }
  // MergeFrom appends repeated fields and overwrites or merges singular
  // ones; every field replaced whole is cleared first.
  std::vector<const FieldDescriptor*> set;
  sent.GetReflection()->ListFields(sent, &set);
  for (const FieldDescriptor* f : set) {
    if (std::find(appended.begin(), appended.end(), f) == appended.end()) {
      g->ClearField(held, f);
    }
  }
  held->MergeFrom(sent);
  return absl::OkStatus();
}

absl::Status WatchedMatch::Apply(const v1::WatchEvent& event) {
  switch (event.kind_case()) {
    case v1::WatchEvent::kSnapshot:
      state_ = event.snapshot();
      ++snapshots_;
      break;
    case v1::WatchEvent::kDecision:
      *state_.mutable_decision() = event.decision();
      state_.clear_committed();
      break;
    case v1::WatchEvent::kCommit: {
      auto* committed = state_.mutable_committed();
      const uint32_t seat = event.commit().seat();
      committed->Add(seat);
      std::sort(committed->begin(), committed->end());
      break;
    }
    case v1::WatchEvent::kDelta: {
      const v1::ViewDelta& delta = event.delta();
      v1::PublicView* view = state_.mutable_view();
      if (absl::Status s = ApplyViewDelta(delta, view->mutable_view());
          !s.ok()) {
        return s;
      }
      view->set_decision_id(delta.decision_id());
      // The seed decision (0) closes with the first view; a move with a
      // decision id closes that decision; an automatic move none.
      const bool seed = state_.decision().decision_id() == 0;
      if (state_.has_decision() &&
          (seed || delta.decision_id() == state_.decision().decision_id())) {
        state_.clear_decision();
        state_.clear_committed();
      }
      break;
    }
    case v1::WatchEvent::kOutcome:
      outcome_ = event.outcome();
      state_.clear_decision();
      state_.clear_committed();
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace pyramid
