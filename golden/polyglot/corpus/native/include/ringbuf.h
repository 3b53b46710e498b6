/*
 * ringbuf.h - fixed-capacity ring buffer of barcode scan events.
 *
 * The warehouse handheld scanners push events from an interrupt-driven
 * reader thread; the uploader thread drains them in batches. One producer,
 * one consumer, no locks.
 */
#ifndef PAGEBOUND_RINGBUF_H
#define PAGEBOUND_RINGBUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SCAN_BARCODE_MAX 20

typedef struct {
    uint64_t timestamp_ms;
    uint32_t picker_id;
    char barcode[SCAN_BARCODE_MAX + 1];
    uint8_t quantity;
} scan_event_t;

typedef struct {
    scan_event_t *slots;
    size_t capacity; /* must be a power of two */
    atomic_size_t head; /* next slot to write (producer) */
    atomic_size_t tail; /* next slot to read (consumer) */
    atomic_size_t dropped;
} ringbuf_t;

int ringbuf_init(ringbuf_t *rb, size_t capacity);
void ringbuf_free(ringbuf_t *rb);
int ringbuf_push(ringbuf_t *rb, const scan_event_t *ev);
size_t ringbuf_pop_batch(ringbuf_t *rb, scan_event_t *out, size_t max);
size_t ringbuf_size(const ringbuf_t *rb);

#endif /* PAGEBOUND_RINGBUF_H */
