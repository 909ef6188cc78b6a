#!/usr/bin/env bash
# Builds the Piskvork reference brain (pisq) for Linux, the first rung of the ladder
# (scripts/ladder.py). Its source is Windows code: this supplies a small windows.h of
# our own (events, a thread, the tick count) and builds in a scratch folder, so the
# Piskvork checkout is left as it is and nothing of it enters this repository.
# usage: scripts/build_pisq.sh PISKVORK_CHECKOUT OUTPUT
#   e.g. git clone https://github.com/plastovicka/Piskvork ../Piskvork
#        scripts/build_pisq.sh ../Piskvork ../engines/pbrain-pisq
set -euo pipefail
if [ $# -ne 2 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
source_dir=$1/source
output=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/shim"
cat > "$work/shim/windows.h" <<'EOF'
// The part of the Win32 API that the Piskvork brain uses, on POSIX threads.
#pragma once
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
typedef uint32_t DWORD;
typedef uint64_t DWORD64;
typedef void *LPVOID;
typedef int BOOL;
#define WINAPI
#define TRUE 1
#define FALSE 0
#define INFINITE 0xFFFFFFFF
#define STD_INPUT_HANDLE 0
#define _strnicmp strncasecmp
#define _stricmp strcasecmp
#define _atoi64 atoll
#define UInt32x32To64(a, b) ((uint64_t)(uint32_t)(a) * (uint64_t)(uint32_t)(b))
template <class T> inline T max(T a, T b) { return a > b ? a : b; }
template <class T> inline T min(T a, T b) { return a < b ? a : b; }
struct Event { pthread_mutex_t lock; pthread_cond_t changed; bool manual; bool set; };
typedef Event *HANDLE;
inline HANDLE CreateEvent(void *, BOOL manual, BOOL initial, void *) {
    HANDLE e = new Event;
    pthread_mutex_init(&e->lock, 0);
    pthread_cond_init(&e->changed, 0);
    e->manual = manual;
    e->set = initial;
    return e;
}
inline void SetEvent(HANDLE e) {
    pthread_mutex_lock(&e->lock);
    e->set = true;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
}
inline void ResetEvent(HANDLE e) {
    pthread_mutex_lock(&e->lock);
    e->set = false;
    pthread_mutex_unlock(&e->lock);
}
inline DWORD WaitForSingleObject(HANDLE e, DWORD) {
    pthread_mutex_lock(&e->lock);
    while (!e->set) pthread_cond_wait(&e->changed, &e->lock);
    if (!e->manual) e->set = false;  // an auto-reset event wakes one waiter
    pthread_mutex_unlock(&e->lock);
    return 0;
}
typedef DWORD (*ThreadMain)(LPVOID);
struct ThreadStart { ThreadMain run; LPVOID argument; };
inline void *start_thread(void *p) {
    ThreadStart *start = (ThreadStart *)p;
    start->run(start->argument);
    return 0;
}
inline HANDLE CreateThread(void *, int, ThreadMain run, LPVOID argument, int, DWORD *) {
    pthread_t thread;
    pthread_create(&thread, 0, start_thread, new ThreadStart{run, argument});
    return 0;
}
inline DWORD GetTickCount() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (DWORD)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}
inline void Sleep(DWORD ms) { usleep(ms * 1000); }
inline int GetStdHandle(int) { return 0; }
// Not a console: the brain then skips its warning about being started by hand.
inline BOOL GetConsoleMode(int, DWORD *) { return 0; }
EOF
for file in "$source_dir"/pbrain/*.cpp "$source_dir"/pbrain/*.h \
    "$source_dir"/skelet_CPP/pisqpipe.cpp "$source_dir"/skelet_CPP/pisqpipe.h; do
    # Windows include paths: "..\skelet_CPP\pisqpipe.h" becomes "./pisqpipe.h".
    sed '/#include/ s#\.\.\\skelet_CPP\\#./#' "$file" > "$work/$(basename "$file")"
done
(cd "$work" && g++ -O2 -fpermissive -w -Ishim -o pbrain-pisq \
    alfabeta.cpp piskcomp.cpp pisktur.cpp pisqpipe.cpp -lpthread)
mkdir -p "$(dirname "$output")"
cp "$work/pbrain-pisq" "$output"
echo "built $output"
