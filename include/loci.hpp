/*
 * loci.hpp — C++17 over loci.h: standard containers in memory placed by intent.
 * docs/CPP.md is the guide; loci.h documents the functions underneath.
 *
 *   loci::allocator<T>        a stateful STL allocator bound to an intent or an arena
 *                             (the MPC paper's Listing 1.3, with loci intents for OpenMP
 *                             memory spaces)
 *   loci::arena               owns a loci arena; destroying it releases all its memory
 *   loci::region              owns a mapping of a persistent named region
 *   loci::unique_ptr<T>, loci::make_unique<T>(allocator, args...)   one object in loci memory
 *   loci::error               what loci refused: loci_last_error() at the time
 *
 * Failures throw: loci::error where loci refuses an intent or a name, std::bad_alloc where
 * memory runs out (what containers expect; loci_last_error() still says why).
 */
#ifndef LOCI_HPP
#define LOCI_HPP

#include "loci.h"

#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace loci {

/** What loci refused, with loci_last_error() as it was. */
class error : public std::runtime_error {
public:
    explicit error(const std::string &call) : std::runtime_error(call + ": " + loci_last_error()) {}
};

/** An arena (SICM): data that travels together. Destroying this object destroys the arena and
 *  everything allocated in it, so containers using it must go first. Move-only. */
class arena {
public:
    /** On the target `intent` resolves to; max_bytes caps its live bytes (0 = no cap). */
    explicit arena(const char *intent, std::size_t max_bytes = 0) : a_(loci_arena_create(intent, max_bytes))
    {
        if (!a_)
            throw error("loci_arena_create");
    }
    arena(arena &&other) noexcept : a_(std::exchange(other.a_, nullptr)) {}
    arena &operator=(arena &&other) noexcept
    {
        if (this != &other) {
            loci_arena_destroy(a_);
            a_ = std::exchange(other.a_, nullptr);
        }
        return *this;
    }
    arena(const arena &) = delete;
    arena &operator=(const arena &) = delete;
    ~arena() { loci_arena_destroy(a_); }

    loci_arena_t *get() const noexcept { return a_; }
    const loci_target_t *target() const noexcept { return loci_arena_target(a_); }
    /** All its pages to dst, addresses unchanged (loci_arena_move); throws loci::error. */
    void move_to(const loci_target_t *dst)
    {
        if (loci_arena_move(a_, dst) != 0)
            throw error("loci_arena_move");
    }

private:
    loci_arena_t *a_;
};

/** A persistent named region (loci_region_open), mapped for the lifetime of this object;
 *  the file stays. Move-only. */
class region {
public:
    region(const char *name, std::size_t size, const char *intent = nullptr, unsigned flags = LOCI_REGION_CREATE)
        : p_(loci_region_open(name, size, intent, flags))
    {
        if (!p_)
            throw error(std::string("loci_region_open(\"") + name + "\")");
    }
    region(region &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    region &operator=(region &&other) noexcept
    {
        if (this != &other) {
            close();
            p_ = std::exchange(other.p_, nullptr);
        }
        return *this;
    }
    region(const region &) = delete;
    region &operator=(const region &) = delete;
    ~region() { close(); }

    void *data() const noexcept { return p_; }
    std::size_t size() const noexcept { return loci_region_size(p_); }
    /** Make what was written durable (loci_region_sync); throws loci::error. */
    void sync() const
    {
        if (loci_region_sync(p_) != 0)
            throw error("loci_region_sync");
    }

private:
    void close() noexcept
    {
        if (p_)
            loci_region_close(p_); /* syncs; a failure is in loci's log */
    }
    void *p_;
};

/** A stateful STL allocator: every container node or buffer it makes is placed by one intent
 *  (a cached loci_allocator_t) or in one arena. Copies and rebinds share the source; two
 *  allocators are equal when they place in the same source. Any loci memory can be freed
 *  by any of them (loci_free needs no allocator). */
template <class T>
class allocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    /** The calling thread's local DRAM. */
    allocator() : allocator("") {}
    /** Memory placed by `intent` (docs/INTENTS.md); throws loci::error if it is refused. */
    explicit allocator(const char *intent) : a_(loci_allocator_create(intent))
    {
        if (!a_)
            throw error(std::string("loci_allocator_create(\"") + (intent ? intent : "") + "\")");
    }
    explicit allocator(loci_allocator_t *a) noexcept : a_(a) {}
    explicit allocator(loci_arena_t *ar) noexcept : ar_(ar) {}
    explicit allocator(const arena &ar) noexcept : ar_(ar.get()) {}
    template <class U>
    allocator(const allocator<U> &other) noexcept : a_(other.source_allocator()), ar_(other.source_arena())
    {
    }

    T *allocate(std::size_t n)
    {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw std::bad_array_new_length();
        std::size_t bytes = n * sizeof(T);
        /* loci's blocks are 8-byte aligned at least; types that need more ask for it */
        constexpr std::size_t align = alignof(T) > 8 ? alignof(T) : 0;
        void *p = ar_ ? (align ? loci_arena_aligned_alloc(ar_, align, bytes) : loci_arena_alloc(ar_, bytes))
                      : (align ? loci_aligned_alloc(a_, align, bytes) : loci_alloc(a_, bytes));
        if (!p)
            throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, std::size_t) noexcept { loci_free(p); }

    /** Where it places: an allocator object, or (when not NULL) an arena. */
    loci_allocator_t *source_allocator() const noexcept { return a_; }
    loci_arena_t *source_arena() const noexcept { return ar_; }

private:
    loci_allocator_t *a_ = nullptr;
    loci_arena_t *ar_ = nullptr;
};

template <class T, class U>
bool operator==(const allocator<T> &a, const allocator<U> &b) noexcept
{
    return a.source_allocator() == b.source_allocator() && a.source_arena() == b.source_arena();
}
template <class T, class U>
bool operator!=(const allocator<T> &a, const allocator<U> &b) noexcept
{
    return !(a == b);
}

/** Destroys an object made by loci::make_unique and frees its memory. */
template <class T>
struct deleter {
    void operator()(T *p) const noexcept
    {
        if (p) {
            p->~T();
            loci_free(p);
        }
    }
};

template <class T>
using unique_ptr = std::unique_ptr<T, deleter<T>>;

/** One T, constructed from args, in memory from `where` (any loci::allocator). */
template <class T, class U, class... Args>
unique_ptr<T> make_unique(const allocator<U> &where, Args &&...args)
{
    allocator<T> a(where);
    T *p = a.allocate(1);
    try {
        ::new (static_cast<void *>(p)) T(std::forward<Args>(args)...);
    } catch (...) {
        a.deallocate(p, 1);
        throw;
    }
    return unique_ptr<T>(p);
}

} // namespace loci

#endif /* LOCI_HPP */
