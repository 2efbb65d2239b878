package io.jobwire.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application whose {@code @JobWorker} bean charges orders. */
@SpringBootApplication
public class ChargeApplication {
  public static void main(String[] args) {
    SpringApplication.run(ChargeApplication.class, args);
  }
}
