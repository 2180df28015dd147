#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only) from the source that the npm package node-llama-cpp
# 3.22.1 carries (llama.cpp of 2026-09-28), for the integration tests (*IT). The result is cached
# outside the clone, so a machine builds it once (about 7 minutes on 2 cores):
#   ${LLM_ROUTER_CACHE:-~/.cache/llm-router}/llama.cpp-node-llama-cpp-3.22.1/llama-server
# Prints that path. Needs npm, git, cmake and g++ (Debian: apt-get install npm git cmake g++).
set -euo pipefail
cache="${LLM_ROUTER_CACHE:-$HOME/.cache/llm-router}/llama.cpp-node-llama-cpp-3.22.1"
if [ -x "$cache/llama-server" ]; then echo "$cache/llama-server"; exit 0; fi
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent node-llama-cpp@3.22.1 >&2
tar xzf node-llama-cpp-3.22.1.tgz package/llama/gitRelease.bundle
git clone -q package/llama/gitRelease.bundle llama.cpp
flags="-ffile-prefix-map=$work/llama.cpp=llama.cpp"
cmake -S llama.cpp -B build -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" >&2
cmake --build build --target llama-server -j"$(nproc)" >&2
strip build/bin/llama-server
cp build/bin/llama-server "$cache/llama-server.tmp"
mv "$cache/llama-server.tmp" "$cache/llama-server"
echo "$cache/llama-server"
