package dev.dml.ray.runs;

/** Where a recorded run stands. */
public enum RunStatus {
    /** Its process is still recording it. */
    RUNNING,
    /** It ran all its epochs, or stopped early by {@code --early-stop}. */
    FINISHED,
    /** Someone stopped it, or its budget or deadline did; its result holds what it had. */
    STOPPED,
    /** It ended with an error. */
    FAILED,
    /** The process recording it died while it ran; the record holds what it had then. */
    LOST;

    /** The word stored and shown: {@code finished}. */
    String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    static RunStatus of(String word) {
        return valueOf(word.toUpperCase(java.util.Locale.ROOT));
    }
}
