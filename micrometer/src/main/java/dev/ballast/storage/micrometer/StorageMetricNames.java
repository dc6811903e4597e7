package dev.ballast.storage.micrometer;

/**
 * The names and tags of every meter {@link StorageMetrics} publishes: the one place they are
 * spelled. The scheme is the HTTP meters' ({@code dev.ballast.http.micrometer.MetricNames}) under
 * the prefix {@value #PREFIX}. Every meter carries the {@value #STORE_TAG} tag (the store kind:
 * {@code s3}, {@code local}, {@code block}, {@code fake}, {@code custom}) and the tags given to
 * {@link StorageMetrics#create(Iterable)}; every other tag takes a handful of fixed values.
 *
 * <table class="striped">
 *   <caption>Meters of a storage facade</caption>
 *   <thead><tr><th>Name</th><th>Type</th><th>Tags besides {@code store}</th><th>What it measures</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@value #OPERATIONS}</td><td>timer</td><td>{@value #OPERATION_TAG}, {@value #OUTCOME_TAG}</td>
 *       <td>operations the object store ran, and how long each took (a get: until its stream was read
 *       to the end or closed)</td></tr>
 *   <tr><td>{@value #BYTES}</td><td>distribution summary (bytes)</td><td>{@value #OPERATION_TAG}</td>
 *       <td>object bytes moved by each successful operation: read from a get, written by a put</td></tr>
 *   <tr><td>{@value #DEGRADED_READS}</td><td>timer</td><td>{@value #REASON_TAG}</td>
 *       <td>reads served from the last-known-good cache because the store was unavailable; the value
 *       recorded is the age of the data served (count, total and max age)</td></tr>
 *   <tr><td>{@value #UNAVAILABLE_READS}</td><td>counter</td><td>{@value #REASON_TAG}, {@value #CACHED_TAG}</td>
 *       <td>reads that failed: store unavailable and no acceptable copy cached</td></tr>
 *   <tr><td>{@value #STALE_READS}</td><td>counter</td><td>{@value #HANDLING_TAG}</td>
 *       <td>reads that found a version older than one already seen</td></tr>
 *   <tr><td>{@value #INTEGRITY_FAILURES}</td><td>counter</td><td>—</td>
 *       <td>reads whose bytes did not match the recorded SHA-256 or length</td></tr>
 *   <tr><td>{@value #CONDITIONAL_WRITE_REFUSALS}</td><td>counter</td><td>{@value #OPERATION_TAG},
 *       {@value #REASON_TAG}</td><td>conditional writes the store refused</td></tr>
 *   <tr><td>{@value #CAPABILITY}</td><td>gauge</td><td>{@value #CAPABILITY_TAG}</td>
 *       <td>1 when the store has the capability, 0 when not</td></tr>
 *   </tbody>
 * </table>
 */
public final class StorageMetricNames {

    /** The prefix of every meter name. */
    public static final String PREFIX = "ballast.storage";

    /** Timer of object-store operations. */
    public static final String OPERATIONS = PREFIX + ".operations";
    /** Distribution summary of the bytes each successful operation moved; base unit bytes. */
    public static final String BYTES = PREFIX + ".bytes";
    /** Timer of degraded reads; the value recorded is the age of the data served. */
    public static final String DEGRADED_READS = PREFIX + ".degraded.reads";
    /** Counter of reads that threw {@code StorageUnavailableException}. */
    public static final String UNAVAILABLE_READS = PREFIX + ".unavailable.reads";
    /** Counter of stale reads detected. */
    public static final String STALE_READS = PREFIX + ".stale.reads";
    /** Counter of integrity failures. */
    public static final String INTEGRITY_FAILURES = PREFIX + ".integrity.failures";
    /** Counter of refused conditional writes. */
    public static final String CONDITIONAL_WRITE_REFUSALS = PREFIX + ".conditional.write.refusals";
    /** Gauge per capability, 1 or 0. */
    public static final String CAPABILITY = PREFIX + ".capability";

    /** The store kind, on every meter: {@code s3}, {@code local}, {@code block}, {@code fake} or {@code custom}. */
    public static final String STORE_TAG = "store";
    /**
     * On {@value #OPERATIONS}, {@value #BYTES} and {@value #CONDITIONAL_WRITE_REFUSALS}: {@code put},
     * {@code put_async}, {@code put_if_absent}, {@code put_if_match}, {@code get}, {@code head},
     * {@code versions}, {@code list}, {@code list_versions}, {@code delete}, {@code delete_version},
     * {@code missing_content}; for block volumes {@code write}, {@code read}, {@code truncate},
     * {@code force}.
     */
    public static final String OPERATION_TAG = "operation";
    /**
     * On {@value #OPERATIONS}: {@code success}, {@code not_found}, {@code precondition_failed},
     * {@code unavailable}, {@code integrity_failure}, {@code stale}, {@code refused},
     * {@code unsupported}, {@code invalid}, {@code error}.
     */
    public static final String OUTCOME_TAG = "outcome";
    /**
     * On {@value #DEGRADED_READS} and {@value #UNAVAILABLE_READS}: why the store was unavailable,
     * {@code circuit_open}, {@code rejected}, {@code timeout}, {@code unreachable} or
     * {@code unavailable}; on {@value #CONDITIONAL_WRITE_REFUSALS}: {@code exists},
     * {@code etag_mismatch}, {@code not_found} or {@code unsupported}.
     */
    public static final String REASON_TAG = "reason";
    /** On {@value #UNAVAILABLE_READS}: {@code expired} when a copy was cached but too old, {@code none} otherwise. */
    public static final String CACHED_TAG = "cached";
    /** On {@value #STALE_READS}: {@code refused} (a {@code StaleReadException}) or {@code returned} (marked stale). */
    public static final String HANDLING_TAG = "handling";
    /**
     * On {@value #CAPABILITY}: {@code versioning}, {@code put_if_absent}, {@code put_if_match},
     * {@code additional_checksums}.
     */
    public static final String CAPABILITY_TAG = "capability";

    private StorageMetricNames() {}
}
