package io.zerolayer.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A Flink cluster's REST API, as the Web UI uses it: upload and run a job jar, watch the job, stop
 * it with a savepoint, and read its TaskManagers' slots and the job's failures.
 */
public final class ClusterRest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI restUrl;
    private final Path savepoints;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * @param savepoints where stop-with-savepoint writes
     */
    public ClusterRest(URI restUrl, Path savepoints) {
        this.restUrl = restUrl;
        this.savepoints = savepoints;
    }

    private URI restUrl() {
        return restUrl;
    }

    /** Busy slots of each TaskManager by resource id, as the REST API reports them. */
    public Map<String, Integer> busySlots() throws IOException, InterruptedException {
        Map<String, Integer> busy = new java.util.TreeMap<>();
        for (JsonNode tm : get("taskmanagers").path("taskmanagers")) {
            busy.put(
                    tm.path("id").asText(),
                    tm.path("slotsNumber").asInt() - tm.path("freeSlots").asInt());
        }
        return busy;
    }

    /**
     * When the JobManager recorded each failure of the job (epoch millis, oldest first), from the
     * REST API's exception history.
     */
    public List<Long> failureTimes(String jobId) throws IOException, InterruptedException {
        List<Long> times = new ArrayList<>();
        for (JsonNode e :
                get("jobs/" + jobId + "/exceptions").path("exceptionHistory").path("entries")) {
            times.add(e.path("timestamp").asLong());
        }
        times.sort(null);
        return times;
    }

    /**
     * Uploads the job jar and runs it with these program arguments, as the Web UI does.
     *
     * @param savepoint a savepoint to start from, or null
     * @return the job id
     */
    public String submit(Path jar, List<String> programArgs, int parallelism, String savepoint)
            throws IOException, InterruptedException {
        return run(upload(jar), programArgs, parallelism, savepoint);
    }

    /** Uploads a job jar to the JobManager; returns its id there, for {@link #run}. */
    public String upload(Path jar) throws IOException, InterruptedException {
        String boundary = "zerolayer-" + UUID.randomUUID();
        byte[] head =
                ("--"
                                + boundary
                                + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                + " filename=\""
                                + jar.getFileName()
                                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest upload =
                HttpRequest.newBuilder(restUrl().resolve("jars/upload"))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(
                                HttpRequest.BodyPublishers.concat(
                                        HttpRequest.BodyPublishers.ofByteArray(head),
                                        HttpRequest.BodyPublishers.ofFile(jar),
                                        HttpRequest.BodyPublishers.ofByteArray(tail)))
                        .build();
        JsonNode uploaded = send(upload);
        return Path.of(uploaded.path("filename").asText()).getFileName().toString();
    }

    /**
     * Runs an uploaded jar ({@link #upload}) with these program arguments.
     *
     * @param savepoint a savepoint to start from, or null
     * @return the job id
     */
    public String run(String jarId, List<String> programArgs, int parallelism, String savepoint)
            throws IOException, InterruptedException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("entryClass", "io.zerolayer.cli.ZeroLayerCli");
        run.put("programArgsList", programArgs);
        run.put("parallelism", parallelism);
        if (savepoint != null) {
            run.put("savepointPath", savepoint);
        }
        return postJson("jars/" + jarId + "/run", run).path("jobid").asText();
    }

    /** How many checkpoints of the job have completed, as the REST API counts them. */
    public long completedCheckpoints(String jobId) throws IOException, InterruptedException {
        return get("jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }

    /**
     * Waits until a checkpoint that started after this call has completed: whatever the job wrote
     * before the call is then committed by its transactional sinks.
     */
    public void awaitCheckpointAfterNow(String jobId, Duration timeout)
            throws IOException, InterruptedException {
        // the checkpoint under way may have started before now; the one after it did not
        long wanted = completedCheckpoints(jobId) + 2;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (completedCheckpoints(jobId) < wanted) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Job " + jobId + " completed no new checkpoint in " + timeout);
            }
            Thread.sleep(100);
        }
    }

    /** The job's state, e.g. RUNNING. */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return get("jobs/" + jobId).path("state").asText();
    }

    /** Waits until every task of the job runs. */
    public void awaitRunning(String jobId, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode job = get("jobs/" + jobId);
            boolean all = job.path("state").asText().equals("RUNNING");
            for (JsonNode v : job.path("vertices")) {
                all &= v.path("status").asText().equals("RUNNING");
            }
            if (all) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("Job " + jobId + " not running after " + timeout);
    }

    /** Stops the job with a savepoint and returns its path. */
    public String stopWithSavepoint(String jobId, Duration timeout)
            throws IOException, InterruptedException {
        JsonNode trigger =
                postJson(
                        "jobs/" + jobId + "/stop",
                        Map.of("drain", false, "targetDirectory", savepoints.toUri().toString()));
        String request = trigger.path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = get("jobs/" + jobId + "/savepoints/" + request);
            if (status.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = status.path("operation");
                if (op.has("failure-cause")) {
                    throw new IllegalStateException(
                            "Stop with savepoint failed: " + op.path("failure-cause"));
                }
                return op.path("location").asText();
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("No savepoint of " + jobId + " after " + timeout);
    }

    /**
     * Waits until {@code count} TaskManagers registered, the REST endpoint coming up meanwhile.
     *
     * @param logs where the cluster's logs are, for the error when they did not
     */
    public void awaitTaskManagers(int count, Duration timeout, Path logs)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (get("overview").path("taskmanagers").asInt() >= count) {
                    return;
                }
            } catch (IOException notYet) {
                // the REST endpoint is not up yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(count + " TaskManagers did not register; see " + logs);
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(restUrl().resolve(path)).build());
    }

    private JsonNode postJson(String path, Object body) throws IOException, InterruptedException {
        return send(
                HttpRequest.newBuilder(restUrl().resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                        .build());
    }

    JsonNode send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(
                    request.uri()
                            + " answered HTTP "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }
}
