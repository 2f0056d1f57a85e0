package dev.ductor.workflow.expr;

import dev.cel.common.CelOptions;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerBuilder;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;

/**
 * The one CEL environment of the workflow language, built once: the variables an expression may name, the standard
 * functions and macros (nothing that reads the clock, randomness or the environment), and the limits that keep one
 * evaluation bounded. Compilers and runtime are immutable and shared by every thread.
 */
final class CelEnvironment {

    /** Longest expression source, in characters. */
    static final int MAX_SOURCE_LENGTH = 4_096;
    /** Loop iterations of all comprehensions ({@code map}, {@code filter}, {@code all}, ...) of one evaluation together. */
    static final int MAX_ITERATIONS = 10_000;
    /** Largest value one evaluation may produce, counted as compact JSON text. */
    static final long MAX_RESULT_CHARS = 1L << 20;
    /** Largest list a {@code forEach} expression may produce, counted as compact JSON text. */
    static final long MAX_LIST_CHARS = 16L << 20;
    /** Largest compiled regular expression of {@code matches} (RE2: linear time, no backtracking). */
    static final int MAX_REGEX_PROGRAM_SIZE = 1_000;

    static final String INPUT = "input";
    static final String NODES = "nodes";
    static final String RUN = "run";
    static final String ITEM = "item";
    static final String INDEX = "index";

    static final CelOptions OPTIONS = CelOptions.current()
            .comprehensionMaxIterations(MAX_ITERATIONS)
            .maxExpressionCodePointSize(MAX_SOURCE_LENGTH)
            .maxRegexProgramSize(MAX_REGEX_PROGRAM_SIZE)
            .populateMacroCalls(true)
            .build();

    /** For expressions outside a fan-out: no {@code item}, no {@code index}. */
    static final CelCompiler PLAIN = compiler(false);
    /** For expressions of a {@code forEach} node's input. */
    static final CelCompiler FAN_OUT = compiler(true);

    static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(OPTIONS).build();

    private CelEnvironment() {
    }

    private static CelCompiler compiler(boolean fanOut) {
        CelCompilerBuilder builder = CelCompilerFactory.standardCelCompilerBuilder()
                .setOptions(OPTIONS)
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addVar(INPUT, SimpleType.DYN)
                .addVar(NODES, MapType.create(SimpleType.STRING, SimpleType.DYN))
                .addVar(RUN, MapType.create(SimpleType.STRING, SimpleType.DYN));
        if (fanOut) {
            builder.addVar(ITEM, SimpleType.DYN).addVar(INDEX, SimpleType.INT);
        }
        return builder.build();
    }
}
