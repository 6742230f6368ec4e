// Included by with_header.co's host code.
#define TILE_ROWS 16
