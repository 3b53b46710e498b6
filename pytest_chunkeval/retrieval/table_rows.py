"""What a LanceDB table holds, as rows and as Arrow: the row types, one batch's Arrow table, and the size measure.

Its own module because the size gate reads the measure and the evaluator makes the rows, neither of which needs the
database connection :mod:`.index` owns.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pytest_chunkeval.retrieval.identifiers import split_words
from pytest_chunkeval.retrieval.table_identity import TableIdentity


@dataclass
class Row:
    chunk_id: str
    path: str
    start_line: int
    end_line: int
    text: str


@dataclass
class Hit:
    chunk_id: str
    score: float


#: One batch of a table build: its rows and their vectors, in the same order.
Batch = tuple[Sequence[Row], np.ndarray]


def arrow_batch(rows: Sequence[Row], vectors: np.ndarray, identity: TableIdentity | None) -> Any:
    """One batch of rows as the Arrow table LanceDB stores, with the full-text column of split identifiers."""
    import pyarrow as pa

    dim = int(vectors.shape[1]) if len(rows) else 1
    schema = pa.schema(
        [
            pa.field("chunk_id", pa.string()),
            pa.field("path", pa.string()),
            pa.field("start_line", pa.int32()),
            pa.field("end_line", pa.int32()),
            pa.field("text", pa.string()),
            pa.field("words", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ],
        metadata=identity.record() if identity is not None else None,
    )
    return pa.table(
        {
            "chunk_id": [r.chunk_id for r in rows],
            "path": [r.path for r in rows],
            "start_line": [r.start_line for r in rows],
            "end_line": [r.end_line for r in rows],
            "text": [r.text for r in rows],
            "words": [split_words(r.text) for r in rows],
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(vectors.reshape(-1).astype(np.float32) if len(rows) else [], pa.float32()), dim
            ),
        },
        schema=schema,
    )


def arrow_payload_bytes(table: Any) -> int:
    """Bytes of a table's values as Arrow lays them out, counted row by row so chunking cannot change the sum.

    ``pa.Table.nbytes`` would add one offset per chunk and any validity bitmap a reader chose to allocate, both of
    which depend on how the rows happened to be read. Here: a string or binary value costs its bytes plus a 4-byte
    offset, a fixed-width value its width, a fixed-size list its width times its length (a 384-d float32 vector:
    1,536 bytes).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def width(t: Any) -> int:
        if pa.types.is_fixed_size_list(t):
            return int(t.list_size) * width(t.value_type)
        return int(t.bit_width) // 8

    total = 0
    for column in table.columns:
        t = column.type
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
            lengths = pc.sum(pc.binary_length(column)).as_py() or 0
            total += int(lengths) + 4 * len(column)
        else:
            total += width(t) * len(column)
    return total
