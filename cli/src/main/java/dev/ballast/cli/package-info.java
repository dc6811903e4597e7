/**
 * The {@code ballast} command line: {@code backup}, {@code restore}, {@code list}, {@code verify}
 * and {@code versions} over the storage facade, against any S3 endpoint or, by default, a local
 * object store under {@code ~/.ballast/}, in this process.
 */
@NullMarked
package dev.ballast.cli;

import org.jspecify.annotations.NullMarked;
