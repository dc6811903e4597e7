package dev.ballast.cli;

import dev.ballast.backup.Messages;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Turns storage failures into one sentence each: the input, what went wrong, what to do. */
final class Errors {
    private Errors() {}

    /** Runs {@code call}, translating a storage failure about {@code where}/{@code bucket} (null if unknown). */
    static <T> T translate(String where, @Nullable String bucket, Supplier<T> call) {
        try {
            return call.get();
        } catch (StorageException e) {
            throw toFailure(e, where, bucket);
        }
    }

    static CliFailure toFailure(StorageException e, String where, @Nullable String bucket) {
        // named as a command names its store everywhere else (StoreSession#where): "the S3 endpoint URL, bucket 'B'"
        String at = bucket == null ? where : where + ", bucket '" + bucket + "'";
        if (e instanceof StorageUnavailableException && rootMessage(e).startsWith("Unable to load credentials")) {
            return new CliFailure(
                    ExitCodes.USAGE,
                    "No credentials were found for " + at + "; set AWS_ACCESS_KEY_ID and "
                            + "AWS_SECRET_ACCESS_KEY, or name a profile of ~/.aws/credentials with --profile or AWS_PROFILE.",
                    e);
        }
        if (e instanceof StorageUnavailableException && hasCause(e, javax.net.ssl.SSLException.class)) {
            // A failed TLS handshake is no outage: waiting and retrying cannot fix a wrong scheme or certificate.
            return new CliFailure(
                    ExitCodes.USAGE,
                    "The TLS handshake with " + at + " failed (" + rootMessage(e)
                            + "); check the endpoint's scheme (--endpoint, or the URL in --repo s3:URL/BUCKET, where s3:host/bucket"
                            + " means https): http:// for a plain-HTTP server; and that its certificate is trusted.",
                    e);
        }
        if (e instanceof StorageUnavailableException && outOfSpace(e)) {
            return new CliFailure(
                    ExitCodes.UNAVAILABLE,
                    "The store is out of space (" + at + ": " + rootMessage(e)
                            + "); free space there or use another store, then run the command again.",
                    e);
        }
        if (e instanceof StorageUnavailableException
                && String.valueOf(e.getMessage()).contains("in use by another writer")) {
            // The local store's writer lock: no server involved, and waiting is the whole remedy. The store's own
            // words (the lock file's name) tell nothing more, so no cause is kept to point --verbose at.
            return new CliFailure(
                    ExitCodes.UNAVAILABLE,
                    "Another ballast command is writing to " + at
                            + "; wait for it to finish, then run this command again.");
        }
        if (e instanceof StorageUnavailableException
                && String.valueOf(e.getMessage()).contains("reads differently from one read to the next")) {
            // a repair that found a pack's reads disagreeing: the store answers, what it sends changes on its way
            return new CliFailure(ExitCodes.UNAVAILABLE, "At " + at + ": " + e.getMessage(), e);
        }
        boolean noMoreFiles = tooManyOpenFiles(e);
        if (e instanceof StorageUnavailableException && (noMoreFiles || at.startsWith("the local store"))) {
            // EMFILE/ENFILE: neither the store's directory nor its disk is at fault (a tester's restore under
            // ulimit -n 64 was told to check permissions and space)
            return new CliFailure(
                    ExitCodes.UNAVAILABLE,
                    "Could not use " + at + ": " + rootMessage(e) + "; "
                            + (noMoreFiles
                                    ? "this process may open no more files: raise its limit (ulimit -n, LimitNOFILE= in"
                                            + " a systemd unit; 1024 or more)"
                                    : "check that its directory and files can be read and written and that its disk"
                                            + " has space")
                            + ", then run the command again.",
                    e);
        }
        if (e instanceof StorageUnavailableException) {
            String noAnswer = noAnswer(e);
            return new CliFailure(
                    ExitCodes.UNAVAILABLE,
                    "Could not reach " + at + ": " + (noAnswer != null ? noAnswer : rootMessage(e))
                            + "; check that the server is running and reachable, then run the command again.",
                    e);
        }
        if (e instanceof AccessDeniedException) {
            return new CliFailure(
                    ExitCodes.USAGE,
                    capitalized(at) + " refused the credentials: " + refusal(e)
                            + "; check the keys given (--access-key/--secret-key, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the "
                            + "--profile/AWS_PROFILE profile of ~/.aws/credentials).",
                    e);
        }
        if (e instanceof BucketNotFoundException) {
            // Only commands that read meet it: a backup creates its bucket.
            return new CliFailure(
                    ExitCodes.NOT_FOUND,
                    noBucket(at) + "; check the bucket's name (--bucket, or BUCKET in --repo"
                            + " s3:URL/BUCKET); the first backup into a bucket creates it.",
                    e);
        }
        if (e instanceof UnsupportedCapabilityException) {
            return new CliFailure(ExitCodes.USAGE, capitalized(at) + " cannot hold backups: " + e.getMessage(), e);
        }
        String journalAdvice =
                e instanceof IntegrityException ? journalAdvice(String.valueOf(e.getMessage()), at) : null;
        if (journalAdvice != null) {
            return new CliFailure(ExitCodes.INTEGRITY, journalAdvice, e);
        }
        if (e instanceof IntegrityException ie && ie.inStoreIndex()) {
            return new CliFailure(
                    ExitCodes.INTEGRITY,
                    "The index of " + at + " is damaged (" + rootMessage(e)
                            + "), so its backups can be neither listed nor restored; run 'ballast repair index' to rebuild it"
                            + " from the store's journal, or restore the store's directory from a copy (nothing was changed).",
                    e);
        }
        if (e instanceof IntegrityException) {
            return new CliFailure(
                    ExitCodes.INTEGRITY,
                    "Bytes read from " + at + " do not match their recorded SHA-256 (" + e.getMessage()
                            + "); the stored copy is damaged: restore another version.",
                    e);
        }
        if (e instanceof ObjectNotFoundException nf) {
            return new CliFailure(
                    ExitCodes.NOT_FOUND,
                    e.getMessage() + " in " + at
                            + (nf.deleted() ? "; an older version may still be listed by 'ballast versions'." : "."),
                    e);
        }
        return new CliFailure(ExitCodes.INCOMPLETE, "The operation on " + at + " failed: " + e.getMessage(), e);
    }

    /**
     * What to say of a local store whose index and journal disagree ({@code message} is the store's), or null
     * when they do not. An older copy of index.db put in place of the current one: showing it would show an
     * older state of the backups, and writing through it would delete what newer ones need. A journal that
     * ends before the position its index recorded: the index is the newer record, and the journal is written
     * anew from it.
     */
    private static @Nullable String journalAdvice(String message, String at) {
        if (message.contains("is older than its journal")) {
            return "The index of " + at + " is older than the store's journal, which records changes made since"
                    + " (as when an older copy of index.db is put in place of the current one), so it would show an"
                    + " older state of the backups and a backup, forget or prune could delete what newer ones need;"
                    + " run 'ballast repair index' to bring it up to date from the journal (nothing was changed).";
        }
        if (message.contains("ends before its index")) {
            return "The journal of " + at + " ends before its index (a journal file was cut short or deleted, something"
                    + " other than a file stands in one's place, or the journal was restored from an older copy), so it"
                    + " could no longer rebuild the index; the index is the"
                    + " newer record and nothing is lost: run 'ballast repair index' to keep the index as it is"
                    + " and write the journal anew from it (nothing was changed).";
        }
        return null;
    }

    /** Whether {@code t} says the store ran out of space ({@link Messages#outOfSpace}). */
    /** Whether {@code t} or a cause says the process (EMFILE) or the system (ENFILE) may open no more files. */
    static boolean tooManyOpenFiles(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains("Too many open files")) {
                return true;
            }
        }
        return false;
    }

    static boolean outOfSpace(Throwable t) {
        return Messages.outOfSpace(t);
    }

    /** "the store is out of space", or {@code otherwise}. */
    static String unavailableReason(Throwable t, String otherwise) {
        return Messages.unavailableReason(t, otherwise);
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (type.isInstance(s) || type.isInstance(s.getCause())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code --verbose} would tell more of {@code cause} than {@code sentence}, the error
     * printed, already does: some exception of its chain has a message the sentence does not hold (a
     * message made from its own cause's, as {@code new IOException(cause)} makes one, counts as that
     * cause's), has no message and no cause (its type is then what there is to see), or carries
     * suppressed exceptions. Where every message is in the sentence already, offering {@code
     * --verbose} "to see the cause" would promise what it does not give.
     */
    static boolean causeAddsTo(String sentence, Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String message = c.getMessage();
            Throwable next = c.getCause();
            if (c.getSuppressed().length > 0) {
                return true;
            }
            if (message == null || message.isBlank()) {
                if (next == null && !sentence.contains(c.getClass().getSimpleName())) {
                    return true;
                }
            } else if (!sentence.contains(message)
                    && !sentence.contains(reason(message))
                    && (next == null || !message.equals(next.toString()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * "There is no bucket 'B' at the S3 endpoint URL" for {@code at}, "the S3 endpoint URL, bucket 'B'" (a
     * README-only newcomer found "There is no such bucket at the S3 endpoint URL, bucket 'B'" awkward).
     */
    static String noBucket(String at) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(.*), bucket ('.*')").matcher(at);
        return m.matches()
                ? "There is no bucket " + m.group(2) + " at " + m.group(1)
                : "There is no such bucket at " + at;
    }

    /** {@code text} with its first letter upper case: a sentence that starts with the store's name. */
    static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /**
     * Why a server refused the credentials: its S3 error code (the {@code Code} of the error response,
     * S3 API Reference, "Error responses") said in words where the code says which key is wrong, with the
     * code and the request ID (Ceph RGW answers a wrong secret key with a 403 whose message is empty, so
     * the code is all there is: a README-only newcomer saw "it gave no reason" where the server had said
     * {@code SignatureDoesNotMatch}); else the server's text ({@link #serverReason}).
     */
    static String refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof software.amazon.awssdk.awscore.exception.AwsServiceException s
                    && s.awsErrorDetails() != null
                    && s.awsErrorDetails().errorCode() != null
                    && !s.awsErrorDetails().errorCode().isBlank()) {
                String code = s.awsErrorDetails().errorCode();
                String words = switch (code) {
                    case "SignatureDoesNotMatch" ->
                        "the request's signature does not match, so the secret key"
                                + " is not the one of this access key";
                    case "InvalidAccessKeyId" -> "it knows no such access key";
                    case "AccessDenied" -> "these keys may not do this in this bucket";
                    case "ExpiredToken", "TokenRefreshRequired" -> "the session token has expired";
                    case "InvalidToken" -> "the session token is not valid";
                    default -> null;
                };
                String details = "HTTP " + s.statusCode() + " " + code
                        + (s.requestId() == null || s.requestId().isBlank() ? "" : ", request " + s.requestId());
                return words == null ? serverReason(rootMessage(e)) + " [" + code + "]" : words + " (" + details + ")";
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof software.amazon.awssdk.awscore.exception.AwsServiceException s && s.statusCode() == 403) {
                // no error code: the answer to a HEAD request has no body (a tester's prune, forget and init,
                // which look at the bucket first, said "refused the credentials: Forbidden (Service: S3, ...)")
                return "it answered 403 Forbidden without a reason"
                        + (String.valueOf(e.getMessage()).startsWith("HEAD ")
                                ? " (the answer to a HEAD request has no body)"
                                : "")
                        + ", so the access key, the secret key or a policy of the bucket is refused"
                        + (s.requestId() == null || s.requestId().isBlank() ? "" : " (request " + s.requestId() + ")");
            }
        }
        return serverReason(rootMessage(e));
    }

    /**
     * A server's refusal as the SDK words it, trimmed (it may start with a space); when the server gave no
     * text of its own (Ceph RGW's 403 to a wrong secret: the SDK's message is then only {@code "(Service: S3,
     * Status Code: 403, ...)"}), says so before the details.
     */
    static String serverReason(String message) {
        // the AWS SDK's count of its own attempts: always 1 here (the HTTP client is the one layer that
        // retries), and nothing a user can act on
        String m = message.replaceAll(" ?\\(SDK Attempt Count: \\d+\\)", "").strip();
        return m.isEmpty() || m.startsWith("(") ? "it gave no reason " + m : m;
    }

    /**
     * The reason at the end of a message that prefixes it with what failed ({@code "Cannot run program
     * \"x\": error=2, No such file or directory"} gives {@code "error=2, No such file or directory"}), or
     * the whole message: a sentence that quotes the reason already shows the cause.
     */
    private static String reason(String message) {
        int colon = message.lastIndexOf(": ");
        return colon < 0 || colon + 2 >= message.length() ? message : message.substring(colon + 2);
    }

    /** The most specific message in a cause chain, without class names ({@link Messages#rootMessage}). */
    static String rootMessage(Throwable t) {
        return Messages.rootMessage(t);
    }

    /**
     * Why a call got no answer, in a user's words, when {@code e}'s causes say: a refused or unreachable
     * connection, or one that timed out, and how many attempts the HTTP client made. Null for any other failure
     * ({@link #rootMessage} words it). The client's own message named the exception's class ("last failure:
     * java.net.ConnectException"), which a JDK gives no message of its own (a README-only newcomer's).
     */
    static @Nullable String noAnswer(Throwable e) {
        int attempts = 0;
        String why = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof dev.ballast.http.RetriesExhaustedException exhausted && attempts == 0) {
                attempts = exhausted.attempts();
            }
            if (why == null) {
                if (t instanceof java.net.http.HttpConnectTimeoutException) {
                    why = "the connection timed out";
                } else if (t instanceof java.net.ConnectException) {
                    why = "the connection was refused, or the host is unreachable";
                } else if (t instanceof java.net.http.HttpTimeoutException) {
                    why = "no answer came within the timeout (--timeout)";
                }
            }
        }
        if (why == null) {
            return null;
        }
        return attempts > 1 ? why + " (" + attempts + " attempts)" : why;
    }

    /**
     * {@code text} with every ISO control character shown as a backslash, {@code u} and four hex digits, and
     * each byte of a file name that is not valid UTF-8 as a backslash, {@code x} and two hex digits
     * ({@link Names#printable}): Linux file names may hold newlines, escape sequences or any bytes, and a message
     * must stay one line that cannot drive the terminal.
     */
    static String printable(@Nullable String text) {
        return Names.printable(text);
    }

    /** What a local file failure was, with the file it concerns ({@link Messages#describeIo}). */
    static String describeIo(Throwable t) {
        return Messages.describeIo(t);
    }
}
