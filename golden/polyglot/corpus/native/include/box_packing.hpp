// box_packing.hpp - choose the smallest shipping box that fits a stack of books.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pagebound {

// Dimensions in millimetres, weight in grams.
struct Dimensions {
    int length = 0;
    int width = 0;
    int height = 0;

    int volume() const { return length * width * height; }
    // Returns the dimensions sorted so length >= width >= height.
    Dimensions normalised() const;
    bool fitsInside(const Dimensions& container) const;
};

struct Book {
    std::string isbn;
    Dimensions size;
    int weight_grams = 0;
};

struct Box {
    std::string sku;
    Dimensions inner;
    int tare_grams = 0;
    int max_load_grams = 0;
};

struct PackingResult {
    const Box* box = nullptr;
    Dimensions stack;
    int total_weight_grams = 0;
    double fill_ratio = 0.0;
};

// Computes the bounding box of the books stacked flat, largest footprint at
// the bottom.
Dimensions stackDimensions(const std::vector<Book>& books);

// Picks the box with the least wasted volume that fits the stack and can
// carry its weight. Returns std::nullopt when nothing fits (split the order).
std::optional<PackingResult> chooseBox(const std::vector<Book>& books, const std::vector<Box>& boxes);

// Standard Pagebound box range, smallest first.
const std::vector<Box>& standardBoxes();

}  // namespace pagebound
