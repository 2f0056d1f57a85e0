package dev.ductor.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes a secret (a dev token) so that only its owner can read it: the file is created with mode 0600 and the
 * content moved into place, so there is never a moment when it is readable by others, and a file an older version
 * left with wider permissions is replaced rather than rewritten in place. New directories are 0700.
 */
final class OwnerOnlyFile {

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private OwnerOnlyFile() {
    }

    static void write(Path file, String content) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        if (POSIX) {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(DIRECTORY));
        } else {
            Files.createDirectories(directory);
        }
        FileAttribute<?>[] attributes = POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)} : new FileAttribute<?>[0];
        Path temp = Files.createTempFile(directory, file.getFileName().toString() + ".", ".tmp", attributes);
        try {
            Files.writeString(temp, content, StandardCharsets.US_ASCII);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
