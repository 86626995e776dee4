package io.zerolayer.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostInputBuffersTest {
    /** Records what the pinned allocator would be asked for, over direct memory. */
    private static final class Recording implements HostInputBuffers.Allocator {
        final List<Long> allocated = new ArrayList<>();
        int freed;

        @Override
        public ByteBuffer allocate(long bytes) {
            allocated.add(bytes);
            return ByteBuffer.allocateDirect((int) bytes);
        }

        @Override
        public void free(ByteBuffer buffer) {
            freed++;
        }

        @Override
        public String kind() {
            return "pinned";
        }
    }

    @Test
    void buffersAreReusedGrownByDoublingAndFreedOnClose() {
        Recording allocator = new Recording();
        try (HostInputBuffers buffers = HostInputBuffers.with(allocator)) {
            long[] small = {1, 2, 3};
            LongBuffer b = buffers.fill(0, small);
            assertThat(b.isDirect()).isTrue();
            assertThat(b.remaining()).isEqualTo(3);
            long[] read = new long[3];
            b.get(read);
            assertThat(read).containsExactly(1, 2, 3);
            buffers.fill(0, new long[] {4, 5}); // fits: no new allocation
            assertThat(allocator.allocated).containsExactly(4096L);
            long[] big = new long[1000]; // 8000 bytes > 4096: twice the old size
            big[999] = 42;
            LongBuffer grown = buffers.fill(0, big);
            assertThat(grown.get(999)).isEqualTo(42);
            assertThat(allocator.allocated).containsExactly(4096L, 8192L);
            assertThat(allocator.freed).isEqualTo(1);
            buffers.fill(1, small);
            buffers.fill(2, small);
        }
        assertThat(allocator.freed).isEqualTo(4); // the grown one and the three in use
    }

    @Test
    void withoutCudaTheEncoderWritesItsInputsToDirectMemoryAndComputesTheSame() {
        try (SentenceEncoder encoder = SentenceEncoder.open(EncoderModel.MINILM_L6_V2_FP32, 1)) {
            assertThat(encoder.inputMemory()).isEqualTo("direct");
            float[][] once = encoder.embed(List.of("a late parcel", "a refund"));
            float[][] again = encoder.embed(List.of("a late parcel", "a refund"));
            assertThat(again[0]).containsExactly(once[0]);
            assertThat(Pooling.cosine(once[0], once[1])).isBetween(-1.0, 0.99);
        }
    }
}
