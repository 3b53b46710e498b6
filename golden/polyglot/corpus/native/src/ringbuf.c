/*
 * ringbuf.c - lock-free single-producer/single-consumer ring buffer used by
 * the warehouse scanner daemon to hand scan events to the uploader.
 */
#include "ringbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_power_of_two(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

int ringbuf_init(ringbuf_t *rb, size_t capacity)
{
    if (rb == NULL || !is_power_of_two(capacity)) {
        return -EINVAL;
    }
    rb->slots = calloc(capacity, sizeof(scan_event_t));
    if (rb->slots == NULL) {
        return -ENOMEM;
    }
    rb->capacity = capacity;
    atomic_init(&rb->head, 0);
    atomic_init(&rb->tail, 0);
    atomic_init(&rb->dropped, 0);
    return 0;
}

void ringbuf_free(ringbuf_t *rb)
{
    free(rb->slots);
    rb->slots = NULL;
    rb->capacity = 0;
}

/*
 * Producer side. When the buffer is full the new event is dropped (and
 * counted) rather than overwriting unsent scans: a missed scan is re-scanned
 * by the picker, but a silently overwritten one would corrupt stock counts.
 */
int ringbuf_push(ringbuf_t *rb, const scan_event_t *ev)
{
    size_t head = atomic_load_explicit(&rb->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&rb->tail, memory_order_acquire);
    if (head - tail == rb->capacity) {
        atomic_fetch_add_explicit(&rb->dropped, 1, memory_order_relaxed);
        return -EAGAIN;
    }
    scan_event_t *slot = &rb->slots[head & (rb->capacity - 1)];
    memcpy(slot, ev, sizeof(*slot));
    slot->barcode[SCAN_BARCODE_MAX] = '\0';
    atomic_store_explicit(&rb->head, head + 1, memory_order_release);
    return 0;
}

/* Consumer side: copy up to max events into out, oldest first. */
size_t ringbuf_pop_batch(ringbuf_t *rb, scan_event_t *out, size_t max)
{
    size_t tail = atomic_load_explicit(&rb->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&rb->head, memory_order_acquire);
    size_t available = head - tail;
    size_t n = available < max ? available : max;
    for (size_t i = 0; i < n; i++) {
        out[i] = rb->slots[(tail + i) & (rb->capacity - 1)];
    }
    atomic_store_explicit(&rb->tail, tail + n, memory_order_release);
    return n;
}

size_t ringbuf_size(const ringbuf_t *rb)
{
    size_t head = atomic_load_explicit(&((ringbuf_t *)rb)->head, memory_order_acquire);
    size_t tail = atomic_load_explicit(&((ringbuf_t *)rb)->tail, memory_order_acquire);
    return head - tail;
}
