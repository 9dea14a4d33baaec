#include "sim/core/reply.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace locksim {
namespace {

// An array reply's elements read as a vector would, whether or not there
// are any (they are on the heap only when there are).
TEST(ReplyElements, ReadAsAVectorWouldWithOrWithoutElements) {
  const Reply none = Reply::Ok();
  EXPECT_TRUE(none.elements.empty());
  EXPECT_EQ(none.elements.size(), 0u);
  EXPECT_EQ(none.elements.begin(), none.elements.end());
  EXPECT_THROW(none.elements.at(0), std::out_of_range);

  const Reply array = Reply::Array({Reply::Integer(1), Reply::String("x"), Reply::Nil()});
  ASSERT_EQ(array.elements.size(), 3u);
  EXPECT_EQ(array.elements[1], Reply::String("x"));
  EXPECT_EQ(array.elements.at(2), Reply::Nil());
  EXPECT_THROW(array.elements.at(3), std::out_of_range);
  int64_t seen = 0;
  for (const Reply& e : array.elements) seen += e.type == Reply::Type::kInteger ? e.integer : 10;
  EXPECT_EQ(seen, 21);
  EXPECT_EQ(array.ToString(), R"([1) (integer) 1, 2) "x", 3) (nil)])");
  EXPECT_EQ(Reply::Array({}).ToString(), "(empty array)");
}

TEST(ReplyElements, CopiesAreIndependentAndMovesLeaveNothingBehind) {
  Reply a = Reply::Array({Reply::Array({Reply::Integer(7)})});
  Reply copy = a;
  EXPECT_EQ(copy, a);
  copy.elements[0].elements.push_back(Reply::Integer(8));
  EXPECT_NE(copy, a);
  EXPECT_EQ(a.elements[0].elements.size(), 1u);

  Reply moved = std::move(copy);
  EXPECT_EQ(moved.elements[0].elements.size(), 2u);
  EXPECT_TRUE(copy.elements.empty());  // NOLINT: a moved-from reply has none

  moved = a;  // copy-assignment replaces, not appends
  EXPECT_EQ(moved, a);
  moved = Reply::Ok();  // move-assignment drops the old elements
  EXPECT_TRUE(moved.elements.empty());

  Reply grown;
  grown.type = Reply::Type::kArray;
  grown.elements.push_back(Reply::Ok());
  EXPECT_EQ(grown, Reply::Array({Reply::Ok()}));
  // An empty array equals one built empty, whatever was allocated.
  EXPECT_EQ(Reply::Array({}), Reply::Array(std::vector<Reply>{}));
}

}  // namespace
}  // namespace locksim
