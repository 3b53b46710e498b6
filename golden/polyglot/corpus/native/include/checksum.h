/*
 * checksum.h - integrity checks for supplier stock feeds received over SFTP.
 *
 * Feeds arrive as fixed-width text files with a trailer line containing the
 * CRC-32 of everything before it.
 */
#ifndef PAGEBOUND_CHECKSUM_H
#define PAGEBOUND_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Incremental CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320). */
uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len);

/* One-shot CRC-32 of a buffer. */
uint32_t crc32(const uint8_t *data, size_t len);

/* Validate an EAN-13 barcode (the ISBN-13 printed on the back cover). */
int ean13_is_valid(const char *digits);

/*
 * Verify a feed file: returns 0 if the trailer CRC matches, -1 on I/O error,
 * -2 if the trailer is missing or malformed, -3 on checksum mismatch.
 */
int verify_feed_file(const char *path, uint32_t *computed_out);

#endif /* PAGEBOUND_CHECKSUM_H */
