package dev.ballast.http.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code url.full} of the call and attempt spans: the request URI without its query, fragment and user
 * info (which may carry credentials), with "/" for an empty path, whether it is cut from the URI's own
 * string or built from its parts.
 */
class UrlFullTest {

    @ParameterizedTest
    @CsvSource({
        "http://127.0.0.1:8080/item?q=1, http://127.0.0.1:8080/item",
        "http://127.0.0.1:8080/item, http://127.0.0.1:8080/item",
        "https://api.example.com/a/b#part, https://api.example.com/a/b",
        "https://api.example.com/a%20b?x=%3F#f, https://api.example.com/a%20b",
        "https://user:secret@api.example.com/a?token=t, https://api.example.com/a",
        "http://api.example.com?q=1, http://api.example.com/",
        "http://api.example.com, http://api.example.com/",
        "http://[::1]:8443/v1?k=v, http://[::1]:8443/v1",
        "http://api.example.com:/v1, http://api.example.com/v1",
    })
    void isTheUriWithoutQueryFragmentOrUserInfo(String uri, String expected) {
        assertThat(CallSpan.urlFull(URI.create(uri))).isEqualTo(expected);
    }
}
