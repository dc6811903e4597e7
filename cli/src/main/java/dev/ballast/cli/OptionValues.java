package dev.ballast.cli;

import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.verify.DataSubset;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The converters of the options that take a count or a span, and the one sentence a value an option
 * does not accept gets: every converter of the command's options says {@code 'VALUE' is not ...;
 * give ...} (what the option takes), and {@link #refusal} puts the option's name before it. picocli's
 * own words ({@code Invalid value for option '--transfers': 'abc' is not an int}) name a Java type,
 * not what the option takes. Stateless.
 */
final class OptionValues {
    private OptionValues() {}

    /**
     * The sentence for a value {@code ex} says an option could not convert, or null when {@code ex} is
     * not about an option's value: {@code --transfers 'abc' is not a whole number from 1 to 64 ...}.
     */
    static @Nullable String refusal(CommandLine.ParameterException ex) {
        if (!(ex.getArgSpec() instanceof CommandLine.Model.OptionSpec option)
                || !(ex.getCause() instanceof TypeConversionException conversion)
                || conversion.getMessage() == null) {
            return null;
        }
        String why = conversion.getMessage();
        String value = ex.getValue();
        if (value != null && !why.startsWith("'")) {
            why = "'" + value + "' " + why;
        }
        if (!why.contains("; give") && !why.contains(": pass") && !why.contains(" such as ") && !why.contains("e.g.")) {
            // picocli's own converter ("'x' is not an int"): where the option's description says what it takes
            why = why + "; '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' describes the"
                    + " values it takes";
        }
        return option.longestName() + " " + why + ".";
    }

    /** {@code --transfers}: a whole number from 1 to {@value Transfers#MAX_THREADS}. */
    static final class TransfersConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            Integer n = integer(value);
            if (n == null || n < 1 || n > Transfers.MAX_THREADS) {
                throw new TypeConversionException("'" + value + "' is not a number of files to move at once; give a"
                        + " whole number from 1 to " + Transfers.MAX_THREADS + " (default "
                        + Transfers.DEFAULT_THREADS + ")");
            }
            return n;
        }
    }

    /** {@code --keep-last} and the other {@code --keep-*} counts: 0 or more, or -1 for unlimited. */
    static final class KeepCountConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            Integer n = integer(value);
            if (n == null || n < -1) {
                throw new TypeConversionException("'" + value + "' is not a number of backups to keep; give a whole"
                        + " number, 0 or more, or -1 to keep every one");
            }
            return n;
        }
    }

    /** {@code --keep-within}: a span such as {@code 1y2m3d4h}, checked as the option is read. */
    static final class SpanConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                RetentionPolicy.Within.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return value;
        }
    }

    /** {@code --read-data-subset}: n/t, a percentage or a size, checked as the option is read. */
    static final class SubsetConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                DataSubset.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return value;
        }
    }

    /** The whole number {@code value} writes (surrounding blanks ignored), or null. */
    private static @Nullable Integer integer(String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
