package io.jobwire;

import java.util.List;

/**
 * Result of {@link JobwireClient#topology()}.
 *
 * @param brokers the brokers
 * @param clusterSize number of brokers
 * @param partitionsCount number of partitions
 * @param replicationFactor replication factor
 * @param gatewayVersion gateway version
 */
public record Topology(List<Broker> brokers, int clusterSize, int partitionsCount, int replicationFactor, String gatewayVersion) {
  /**
   * One broker.
   *
   * @param nodeId node id
   * @param host host
   * @param port port
   * @param version broker version
   * @param partitions the partitions this broker serves
   */
  public record Broker(int nodeId, String host, int port, String version, List<Partition> partitions) {}

  /**
   * A partition as seen by one broker.
   *
   * @param partitionId partition id
   * @param role {@code LEADER}, {@code FOLLOWER} or {@code INACTIVE}
   * @param health {@code HEALTHY}, {@code UNHEALTHY} or {@code DEAD}
   */
  public record Partition(int partitionId, String role, String health) {}
}
