package dev.ballast.spring.boot.sample;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * What a user writes: a controller that calls a payments service with the {@code RestClient.Builder}
 * Spring Boot provides. Everything else comes from ballast-spring-boot-starter and application.yml.
 */
@SpringBootApplication
public class CheckoutApplication {

    public static void main(String[] args) {
        SpringApplication.run(CheckoutApplication.class, args);
    }

    @RestController
    static class CheckoutController {

        private final RestClient payments;

        CheckoutController(RestClient.Builder builder, @Value("${payments.url}") String paymentsUrl) {
            this.payments = builder.baseUrl(paymentsUrl).build();
        }

        @PostMapping("/checkout")
        String checkout(@RequestBody String order) {
            return payments.post().uri("/charge").body(order).retrieve().body(String.class);
        }

        @GetMapping("/balance")
        String balance() {
            return payments.get().uri("/balance").retrieve().body(String.class);
        }
    }
}
