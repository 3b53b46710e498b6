// box_packing.cpp - box selection for the packing bench.
//
// Packers scan each book; the bench software calls chooseBox() and lights up
// the shelf holding the right box. Books are stacked flat with the largest
// footprint at the bottom, which is how packers actually do it.
#include "box_packing.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace pagebound {

namespace {

constexpr int kPaddingMm = 10;  // bubble wrap on every side

}  // namespace

Dimensions Dimensions::normalised() const {
    std::array<int, 3> d{length, width, height};
    std::sort(d.begin(), d.end(), std::greater<int>());
    return Dimensions{d[0], d[1], d[2]};
}

bool Dimensions::fitsInside(const Dimensions& container) const {
    const Dimensions a = normalised();
    const Dimensions b = container.normalised();
    return a.length <= b.length && a.width <= b.width && a.height <= b.height;
}

Dimensions stackDimensions(const std::vector<Book>& books) {
    Dimensions stack;
    for (const Book& book : books) {
        const Dimensions d = book.size.normalised();
        stack.length = std::max(stack.length, d.length);
        stack.width = std::max(stack.width, d.width);
        stack.height += d.height;  // thinnest side is the spine when lying flat
    }
    stack.length += 2 * kPaddingMm;
    stack.width += 2 * kPaddingMm;
    stack.height += 2 * kPaddingMm;
    return stack;
}

std::optional<PackingResult> chooseBox(const std::vector<Book>& books, const std::vector<Box>& boxes) {
    if (books.empty()) {
        return std::nullopt;
    }
    const Dimensions stack = stackDimensions(books);
    int books_weight = 0;
    for (const Book& book : books) {
        books_weight += book.weight_grams;
    }

    std::optional<PackingResult> best;
    int least_waste = std::numeric_limits<int>::max();
    for (const Box& box : boxes) {
        if (!stack.fitsInside(box.inner)) {
            continue;
        }
        const int total_weight = books_weight + box.tare_grams;
        if (total_weight > box.max_load_grams) {
            continue;
        }
        const int waste = box.inner.volume() - stack.volume();
        if (waste < least_waste) {
            least_waste = waste;
            best = PackingResult{&box, stack, total_weight,
                                 static_cast<double>(stack.volume()) / box.inner.volume()};
        }
    }
    return best;
}

const std::vector<Box>& standardBoxes() {
    static const std::vector<Box> boxes = {
        {"PB-MAILER-S", {250, 180, 40}, 60, 2000},
        {"PB-MAILER-L", {340, 250, 60}, 90, 3000},
        {"PB-BOX-S", {300, 220, 120}, 180, 8000},
        {"PB-BOX-M", {380, 300, 200}, 260, 15000},
        {"PB-BOX-L", {450, 350, 300}, 380, 20000},
    };
    return boxes;
}

}  // namespace pagebound
