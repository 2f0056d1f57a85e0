package dev.ductor.embedded;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** zonky holds an OS file lock on {@code epg-lock} while its JVM lives; a free lock means no live owner. */
final class OwnerLock {

    private static final String LOCK_FILE = "epg-lock";

    private OwnerLock() {
    }

    static boolean isFree(Path dataDirectory) throws IOException {
        Path lockFile = dataDirectory.resolve(LOCK_FILE);
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return false;
            }
            lock.release();
            return true;
        } catch (OverlappingFileLockException heldByThisJvm) {
            return false;
        }
    }
}
