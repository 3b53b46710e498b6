"""Peer: LangChain's RecursiveCharacterTextSplitter.from_language (1,000 chars, no overlap); skipped if not
installed."""
from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.peers import LangchainRecursive


@strategy
def langchain_recursive() -> LangchainRecursive:
    return LangchainRecursive(max_chunk_size=1000)
