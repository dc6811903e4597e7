package dev.ballast.storage.object.s3.transport;

import org.jspecify.annotations.Nullable;

/**
 * Workaround: {@code java.net.http} does not expose the reason phrase that was on the wire, while the
 * SDK's response carries one. This gives the registered phrase of RFC 9110 section 15 (and 429 from
 * RFC 6585 section 4) for the codes they define, and null otherwise; clients ignore reason phrases
 * (RFC 9112 section 4), so nothing depends on it but messages. Stateless.
 */
final class ReasonPhrases {
    private ReasonPhrases() {}

    /** The registered reason phrase of {@code status}, or null. */
    static @Nullable String of(int status) {
        return switch (status) {
            case 100 -> "Continue";
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 206 -> "Partial Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 303 -> "See Other";
            case 304 -> "Not Modified";
            case 307 -> "Temporary Redirect";
            case 308 -> "Permanent Redirect";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 412 -> "Precondition Failed";
            case 413 -> "Content Too Large";
            case 416 -> "Range Not Satisfiable";
            case 417 -> "Expectation Failed";
            case 422 -> "Unprocessable Content";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            default -> null;
        };
    }
}
