package dev.ballast.test;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.Freshness;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One fault a {@link FaultInjectingObjectStore} injects, made by the factories below. Every fault
 * surfaces as the store SPI's own exceptions, with the outcome flags a real store sets, so that the
 * {@code StorageFacade} and a service classify it as they classify a real failure (the mapping is
 * {@code S3Errors}' and {@code LocalObjectStore}'s):
 *
 * <ul>
 *   <li>{@link #slowDown()}: HTTP 503 {@code SlowDown}, {@link StorageUnavailableException} with
 *       {@code outcomeUnknown} false (a 503 proves nothing was stored);
 *   <li>{@link #serverError()}: HTTP 500 before the store acted, {@code outcomeUnknown} true;
 *   <li>{@link #answerLost()}: the operation lands, then its answer is lost: {@code outcomeUnknown} true;
 *   <li>{@link #accessDenied()}: HTTP 403, {@link AccessDeniedException};
 *   <li>{@link #outOfSpace()}: HTTP 507 {@code XMinioStorageFull} on a write,
 *       {@link StorageUnavailableException} with {@code outcomeUnknown} false;
 *   <li>{@link #staleVersion()}: a read of the latest version answered by the previous one, as a
 *       lagging replica would: {@link StaleReadException}, or {@link Freshness#STALE} with the old bytes
 *       when the read accepts stale data;
 *   <li>{@link #truncatedBody(long)} and {@link #corruptedBody(long)}: the body breaks off or has a
 *       flipped byte; the read that reaches the damage raises {@link IntegrityException} before the
 *       bytes past it are handed over, as the real stores' verifying streams do;
 *   <li>{@link #conditionalWriteRace(byte[])}: another writer lands a version just before a
 *       conditional write, which then fails as it would ({@link AlreadyExistsException},
 *       {@link PreconditionFailedException});
 *   <li>{@link #latency(Duration)} and {@link #hang()} / {@link #hang(Duration)}: time before the
 *       store is called (see {@link FaultInjectingObjectStore} for how time passes).
 * </ul>
 *
 * Immutable and thread-safe.
 */
public sealed interface StoreFault {

    /** Whether this fault can be injected into {@code operation}. */
    boolean appliesTo(StoreOperation operation);

    /** Delays the call by {@code delay} and then lets it through. */
    record Latency(Duration delay) implements StoreFault {
        public Latency {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("latency must be >= 0 but was " + delay);
            }
        }

        @Override
        public boolean appliesTo(StoreOperation operation) {
            return true;
        }
    }

    /**
     * Blocks the call until the test calls {@link FaultInjectingObjectStore#releaseHangs()}, then
     * lets it through, or {@link FaultInjectingObjectStore#timeOutHangs()}, then fails it as a timeout
     * ({@link StorageUnavailableException}, outcome unknown for a write); with a {@code bound}, a call not released within it (real time) fails as a
     * timeout would ({@link StorageUnavailableException}, outcome unknown for a write).
     */
    record Hang(@Nullable Duration bound) implements StoreFault {
        @Override
        public boolean appliesTo(StoreOperation operation) {
            return true;
        }
    }

    /** A refusal or an error answered instead of calling the store: see the factories. */
    record Refusal(Kind kind) implements StoreFault {
        /** Which answer. */
        public enum Kind {
            /** 503 SlowDown. */
            SLOW_DOWN,
            /** 500 InternalError, before the store acted. */
            SERVER_ERROR,
            /** 403 AccessDenied. */
            ACCESS_DENIED,
            /** 507 XMinioStorageFull, writes only. */
            OUT_OF_SPACE
        }

        public Refusal {
            Objects.requireNonNull(kind, "kind");
        }

        @Override
        public boolean appliesTo(StoreOperation operation) {
            return kind != Kind.OUT_OF_SPACE || operation.writes();
        }
    }

    /** The store acts, then the answer is lost (a reset after the request was processed). */
    record AnswerLost() implements StoreFault {
        @Override
        public boolean appliesTo(StoreOperation operation) {
            return true;
        }
    }

    /** A read of the latest version is answered by the previous version (reads only). */
    record StaleVersion() implements StoreFault {
        @Override
        public boolean appliesTo(StoreOperation operation) {
            return operation == StoreOperation.GET;
        }
    }

    /** The body ends after {@code afterBytes} bytes (reads only); a shorter object is not damaged. */
    record TruncatedBody(long afterBytes) implements StoreFault {
        public TruncatedBody {
            if (afterBytes < 0) {
                throw new IllegalArgumentException("afterBytes must be >= 0 but was " + afterBytes);
            }
        }

        @Override
        public boolean appliesTo(StoreOperation operation) {
            return operation == StoreOperation.GET;
        }
    }

    /** The byte at offset {@code atByte} is flipped (reads only); a shorter object's last byte is. */
    record CorruptedBody(long atByte) implements StoreFault {
        public CorruptedBody {
            if (atByte < 0) {
                throw new IllegalArgumentException("atByte must be >= 0 but was " + atByte);
            }
        }

        @Override
        public boolean appliesTo(StoreOperation operation) {
            return operation == StoreOperation.GET;
        }
    }

    /** Another writer puts {@code competitor} just before a conditional write (conditional writes only). */
    record ConditionalWriteRace(byte[] competitor) implements StoreFault {
        public ConditionalWriteRace {
            competitor = competitor.clone();
        }

        @Override
        public byte[] competitor() {
            return competitor.clone();
        }

        @Override
        public boolean appliesTo(StoreOperation operation) {
            return operation == StoreOperation.PUT_IF_ABSENT || operation == StoreOperation.PUT_IF_MATCH;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ConditionalWriteRace r && java.util.Arrays.equals(competitor, r.competitor);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(competitor);
        }

        @Override
        public String toString() {
            return "ConditionalWriteRace[" + competitor.length + " bytes]";
        }
    }

    /** @see Latency */
    static StoreFault latency(Duration delay) {
        return new Latency(delay);
    }

    /** A hang released only by {@link FaultInjectingObjectStore#releaseHangs()}. @see Hang */
    static StoreFault hang() {
        return new Hang(null);
    }

    /** A hang that fails as a timeout after {@code bound} (real time) unless released first. @see Hang */
    static StoreFault hang(Duration bound) {
        Objects.requireNonNull(bound, "bound");
        if (bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("hang bound must be > 0 but was " + bound);
        }
        return new Hang(bound);
    }

    /** HTTP 503 SlowDown: nothing was stored. */
    static StoreFault slowDown() {
        return new Refusal(Refusal.Kind.SLOW_DOWN);
    }

    /** HTTP 500 InternalError: outcome unknown (the store in fact was not called). */
    static StoreFault serverError() {
        return new Refusal(Refusal.Kind.SERVER_ERROR);
    }

    /** HTTP 403 AccessDenied. */
    static StoreFault accessDenied() {
        return new Refusal(Refusal.Kind.ACCESS_DENIED);
    }

    /** HTTP 507 XMinioStorageFull on writes: nothing was stored. */
    static StoreFault outOfSpace() {
        return new Refusal(Refusal.Kind.OUT_OF_SPACE);
    }

    /** The store acts, then the caller gets an outcome-unknown failure. */
    static StoreFault answerLost() {
        return new AnswerLost();
    }

    /** Reads of the latest version served from the previous version. */
    static StoreFault staleVersion() {
        return new StaleVersion();
    }

    /** The body breaks off after {@code afterBytes}. */
    static StoreFault truncatedBody(long afterBytes) {
        return new TruncatedBody(afterBytes);
    }

    /** The byte at {@code atByte} is flipped. */
    static StoreFault corruptedBody(long atByte) {
        return new CorruptedBody(atByte);
    }

    /** Another writer lands {@code competitor} just before the conditional write. */
    static StoreFault conditionalWriteRace(byte[] competitor) {
        return new ConditionalWriteRace(competitor);
    }

    /** Another writer lands {@code competitor} (UTF-8) just before the conditional write. */
    static StoreFault conditionalWriteRace(String competitor) {
        return new ConditionalWriteRace(competitor.getBytes(StandardCharsets.UTF_8));
    }
}
