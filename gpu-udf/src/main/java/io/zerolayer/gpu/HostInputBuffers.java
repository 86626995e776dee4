package io.zerolayer.gpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Off-heap buffers the encoder's three int64 inputs are written into, reused from batch to batch
 * and grown when a batch needs more. ONNX Runtime reads a direct buffer in place (a heap array it
 * would first copy). For a CUDA session they are page-locked ({@code cudaHostAlloc} through
 * JavaCPP), so the provider's host→device copy runs at DMA speed instead of going through a staging
 * buffer; where CUDA cannot be loaded they are plain direct buffers.
 *
 * <p>Not thread-safe: one per encoder, used under its lock.
 */
public final class HostInputBuffers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostInputBuffers.class);

    /** Allocates {@code bytes} of host memory; returns null where it cannot. */
    interface Allocator {
        ByteBuffer allocate(long bytes);

        void free(ByteBuffer buffer);

        String kind();
    }

    private final Allocator allocator;
    private final ByteBuffer[] buffers = new ByteBuffer[3];

    private HostInputBuffers(Allocator allocator) {
        this.allocator = allocator;
    }

    /** Pinned buffers when {@code pinned} and CUDA loads, else direct ones. */
    public static HostInputBuffers create(boolean pinned) {
        if (pinned) {
            Allocator cuda = PinnedAllocator.tryCreate();
            if (cuda != null) {
                return new HostInputBuffers(cuda);
            }
            LOG.warn("Pinned host memory is not available (CUDA runtime not loadable): direct");
        }
        return new HostInputBuffers(DIRECT);
    }

    static HostInputBuffers with(Allocator allocator) {
        return new HostInputBuffers(allocator);
    }

    /** {@code pinned} or {@code direct}. */
    public String kind() {
        return allocator.kind();
    }

    /** Input {@code index} (0 ids, 1 mask, 2 token types) holding {@code values}, ready to read. */
    public LongBuffer fill(int index, long[] values) {
        long bytes = (long) values.length * Long.BYTES;
        ByteBuffer b = buffers[index];
        if (b == null || b.capacity() < bytes) {
            if (b != null) {
                allocator.free(b);
            }
            // grow by doubling so a slowly growing batch does not reallocate every time
            long size = Math.max(bytes, b == null ? 4096 : 2L * b.capacity());
            b = allocator.allocate(Math.min(size, Integer.MAX_VALUE - 8));
            buffers[index] = b;
        }
        LongBuffer longs = b.order(ByteOrder.nativeOrder()).asLongBuffer();
        longs.clear();
        longs.put(values);
        longs.flip();
        return longs;
    }

    @Override
    public void close() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                allocator.free(buffers[i]);
                buffers[i] = null;
            }
        }
    }

    private static final Allocator DIRECT =
            new Allocator() {
                @Override
                public ByteBuffer allocate(long bytes) {
                    return ByteBuffer.allocateDirect((int) bytes);
                }

                @Override
                public void free(ByteBuffer buffer) {
                    // the garbage collector frees direct buffers
                }

                @Override
                public String kind() {
                    return "direct";
                }
            };

    /** Page-locked host memory from the CUDA runtime. */
    private static final class PinnedAllocator implements Allocator {
        private final java.util.Map<ByteBuffer, org.bytedeco.javacpp.Pointer> owners =
                new java.util.IdentityHashMap<>();

        static Allocator tryCreate() {
            try {
                org.bytedeco.javacpp.Loader.load(org.bytedeco.cuda.global.cudart.class);
                int[] count = new int[1];
                if (org.bytedeco.cuda.global.cudart.cudaGetDeviceCount(count) != 0
                        || count[0] == 0) {
                    return null;
                }
                return new PinnedAllocator();
            } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError
                return null;
            }
        }

        @Override
        public ByteBuffer allocate(long bytes) {
            org.bytedeco.javacpp.Pointer p = new org.bytedeco.javacpp.Pointer();
            int status = org.bytedeco.cuda.global.cudart.cudaHostAlloc(p, bytes, 0);
            if (status != 0) {
                throw new EncoderException(
                        "cudaHostAlloc of " + bytes + " bytes failed: " + status);
            }
            ByteBuffer buffer =
                    new org.bytedeco.javacpp.BytePointer(p).capacity(bytes).asByteBuffer();
            owners.put(buffer, p);
            return buffer;
        }

        @Override
        public void free(ByteBuffer buffer) {
            org.bytedeco.javacpp.Pointer p = owners.remove(buffer);
            if (p != null) {
                org.bytedeco.cuda.global.cudart.cudaFreeHost(p);
            }
        }

        @Override
        public String kind() {
            return "pinned";
        }
    }
}
