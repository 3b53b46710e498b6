/*
 * checksum.c - CRC-32 and EAN-13 validation for supplier stock feeds.
 */
#include "checksum.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];
static int crc_table_ready = 0;

/* Build the lookup table for the reflected polynomial on first use. */
static void crc32_init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        }
        crc_table[i] = c;
    }
    crc_table_ready = 1;
}

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len)
{
    if (!crc_table_ready) {
        crc32_init_table();
    }
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc = crc_table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
    }
    return ~crc;
}

uint32_t crc32(const uint8_t *data, size_t len)
{
    return crc32_update(0, data, len);
}

int ean13_is_valid(const char *digits)
{
    int sum = 0;
    if (digits == NULL || strlen(digits) != 13) {
        return 0;
    }
    for (int i = 0; i < 13; i++) {
        if (!isdigit((unsigned char)digits[i])) {
            return 0;
        }
    }
    for (int i = 0; i < 12; i++) {
        int d = digits[i] - '0';
        sum += (i % 2 == 0) ? d : 3 * d;
    }
    return (10 - sum % 10) % 10 == digits[12] - '0';
}

/*
 * Streams the file through the CRC in 64 KiB blocks, holding back the last
 * line so that the trailer ("TRL <8 hex digits>\n") is not itself hashed.
 */
int verify_feed_file(const char *path, uint32_t *computed_out)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        return -1;
    }
    if (fseek(fp, 0, SEEK_END) != 0) {
        fclose(fp);
        return -1;
    }
    long size = ftell(fp);
    if (size < 13) {
        fclose(fp);
        return -2;
    }
    /* Trailer is exactly "TRL " + 8 hex digits + "\n" = 13 bytes. */
    char trailer[14] = {0};
    fseek(fp, size - 13, SEEK_SET);
    if (fread(trailer, 1, 13, fp) != 13 || strncmp(trailer, "TRL ", 4) != 0) {
        fclose(fp);
        return -2;
    }
    char *end = NULL;
    uint32_t expected = (uint32_t)strtoul(trailer + 4, &end, 16);
    if (end != trailer + 12) {
        fclose(fp);
        return -2;
    }

    rewind(fp);
    uint8_t buf[65536];
    long remaining = size - 13;
    uint32_t crc = 0;
    while (remaining > 0) {
        size_t want = remaining < (long)sizeof(buf) ? (size_t)remaining : sizeof(buf);
        size_t got = fread(buf, 1, want, fp);
        if (got == 0) {
            fclose(fp);
            return -1;
        }
        crc = crc32_update(crc, buf, got);
        remaining -= (long)got;
    }
    fclose(fp);
    if (computed_out != NULL) {
        *computed_out = crc;
    }
    return crc == expected ? 0 : -3;
}
