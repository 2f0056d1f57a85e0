package dev.ductor.guard;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Reads compiled classes (their bytecode, so comments, strings and formatting cannot hide or fake anything) and
 * reports what would break, silently or loudly, in a native executable:
 * <ul>
 *   <li><b>unregistered</b>: a project class reaches Jackson outside a JAX-RS resource signature (an ObjectMapper
 *   call, {@code JsonCodec}, the entity of a {@code Response}, a problem document's extension members), directly or
 *   inside another payload (record components, fields, getters, type arguments), and is not registered for
 *   reflection;</li>
 *   <li><b>opaque</b>: the type of such a value cannot be worked out from the bytecode (an {@code Object}, a raw
 *   {@code Map}, a {@code Class} parameter) and no declaration says what it holds;</li>
 *   <li><b>forbidden-call</b>: reflection, class loading by name, dynamic proxies, method-handle lookups,
 *   ServiceLoader, class-path resources or Java serialization, unless allowed with a reason;</li>
 *   <li><b>static-init</b>: a static initialiser (or what it calls in the project) that reads the clock, a random
 *   source, the environment or system properties, or starts threads: Quarkus initialises classes while it builds
 *   the image, so such values would be frozen into the executable.</li>
 * </ul>
 *
 * <p>How a payload's type is found: the value's producers are traced through locals and {@code DUP}s (ASM's
 * {@link SourceInterpreter}); a method result, field or parameter gives its generic type by reflection, a class
 * literal the class, {@code Map.of}/{@code List.of}/{@code Set.of} the types of their arguments, and anything else
 * its erased type.
 */
final class NativeImageScanner {

    record Finding(String where, String rule, String detail) {
        @Override
        public String toString() {
            return where + " [" + rule + "] " + detail;
        }
    }

    /** What an opaque sink or component holds, as a person checked it. */
    record Declaration(List<Class<?>> types, String why) {
    }

    /**
     * A project method that passes one of its untyped parameters ({@code Object}) on to Jackson: its callers'
     * arguments are checked like any other payload, so the declaration inside it only has to say "see the callers".
     */
    record Forwarder(String owner, String method, int argument) {
    }

    private enum Kind { VALUE, TARGET_TYPE }

    /** A method whose argument is serialised ({@code VALUE}) or names the type to deserialise ({@code TARGET_TYPE}). */
    private record Sink(String owner, String name, Kind kind, int argument, String label) {
    }

    private static final String OBJECT_MAPPER = "com/fasterxml/jackson/databind/ObjectMapper";
    private static final Set<String> MAPPERS = Set.of(OBJECT_MAPPER, "com/fasterxml/jackson/databind/json/JsonMapper",
            "com/fasterxml/jackson/databind/ObjectWriter", "com/fasterxml/jackson/databind/ObjectReader");
    private static final Set<String> WRITES = Set.of("writeValueAsString", "writeValueAsBytes", "writeValue", "valueToTree");
    private static final Set<String> READS = Set.of("readValue", "readValues", "treeToValue", "convertValue", "readerFor",
            "writerFor", "readerForListOf", "readerForMapOf", "readerForArrayOf");
    private static final Set<String> TYPE_DESCRIPTORS = Set.of("Ljava/lang/Class;",
            "Lcom/fasterxml/jackson/core/type/TypeReference;", "Lcom/fasterxml/jackson/databind/JavaType;");
    private static final String RESPONSE = "jakarta/ws/rs/core/Response";
    private static final String RESPONSE_BUILDER = "jakarta/ws/rs/core/Response$ResponseBuilder";
    private static final String DUCTOR_EXCEPTION = "dev/ductor/error/DuctorException";

    /** Sinks named by class and method; ObjectMapper and Response calls are recognised by {@link #sinks}. */
    private static final List<Sink> PROJECT_SINKS = List.of(
            new Sink("dev/ductor/config/JsonCodec", "write", Kind.VALUE, 0, "JsonCodec.write"),
            new Sink("dev/ductor/config/JsonCodec", "read", Kind.TARGET_TYPE, 1, "JsonCodec.read"),
            // RFC 9457 extension members are written beside the standard ones (Problem.any, @JsonAnyGetter).
            new Sink("dev/ductor/api/Problem", "of", Kind.VALUE, 5, "Problem.of"),
            new Sink("dev/ductor/api/Problem", "<init>", Kind.VALUE, 5, "Problem.<init>"));

    /** Owner -> method names ("*" for all) that native images forbid or need registered. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.ofEntries(
            Map.entry("java/lang/Class", Set.of("forName", "newInstance", "getConstructor", "getConstructors",
                    "getDeclaredConstructor", "getDeclaredConstructors", "getMethod", "getMethods", "getDeclaredMethod",
                    "getDeclaredMethods", "getField", "getFields", "getDeclaredField", "getDeclaredFields",
                    "getRecordComponents", "getResource", "getResourceAsStream")),
            Map.entry("java/lang/ClassLoader", Set.of("loadClass", "getResource", "getResources", "getResourceAsStream",
                    "getSystemResource", "getSystemResources", "getSystemResourceAsStream", "resources")),
            Map.entry("java/lang/reflect/Proxy", Set.of("*")),
            Map.entry("java/lang/reflect/Method", Set.of("invoke")),
            Map.entry("java/lang/reflect/Constructor", Set.of("newInstance")),
            Map.entry("java/lang/reflect/Field", Set.of("get", "set", "setAccessible")),
            Map.entry("java/lang/reflect/AccessibleObject", Set.of("setAccessible")),
            Map.entry("java/lang/invoke/MethodHandles", Set.of("lookup", "privateLookupIn", "publicLookup")),
            Map.entry("java/lang/invoke/MethodHandles$Lookup", Set.of("*")),
            Map.entry("java/util/ServiceLoader", Set.of("load", "loadInstalled")),
            Map.entry("java/io/ObjectInputStream", Set.of("<init>")),
            Map.entry("java/io/ObjectOutputStream", Set.of("<init>")),
            Map.entry("sun/misc/Unsafe", Set.of("*")));

    /** Owner -> method names that must not run while a class initialises (its values would be built into the image). */
    private static final Map<String, Set<String>> NOT_AT_CLASS_INIT = Map.ofEntries(
            Map.entry("java/lang/System", Set.of("currentTimeMillis", "nanoTime", "getenv", "getProperty", "getProperties")),
            Map.entry("java/time/Instant", Set.of("now")),
            Map.entry("java/time/LocalDate", Set.of("now")),
            Map.entry("java/time/LocalDateTime", Set.of("now")),
            Map.entry("java/time/OffsetDateTime", Set.of("now")),
            Map.entry("java/time/ZonedDateTime", Set.of("now")),
            Map.entry("java/time/Clock", Set.of("systemUTC", "systemDefaultZone", "system")),
            Map.entry("java/util/UUID", Set.of("randomUUID")),
            Map.entry("java/util/Random", Set.of("<init>")),
            Map.entry("java/security/SecureRandom", Set.of("*")),
            Map.entry("java/util/concurrent/ThreadLocalRandom", Set.of("current")),
            Map.entry("java/lang/Math", Set.of("random")),
            Map.entry("java/lang/Thread", Set.of("<init>", "start", "ofPlatform", "ofVirtual", "startVirtualThread")),
            Map.entry("java/util/concurrent/Executors", Set.of("*")),
            Map.entry("java/util/concurrent/ThreadPoolExecutor", Set.of("<init>")),
            Map.entry("java/util/concurrent/ScheduledThreadPoolExecutor", Set.of("<init>")),
            Map.entry("java/util/concurrent/ForkJoinPool", Set.of("<init>", "commonPool")),
            Map.entry("java/util/Timer", Set.of("<init>")),
            Map.entry("java/security/KeyPairGenerator", Set.of("*")),
            Map.entry("javax/crypto/KeyGenerator", Set.of("*")),
            Map.entry("java/net/InetAddress", Set.of("getLocalHost")),
            Map.entry("java/lang/ProcessHandle", Set.of("current")));

    private final ClassLoader loader;
    private final Set<String> registered;
    private final Map<String, Declaration> declarations;
    private final Map<String, String> allowedCalls;
    private final List<Forwarder> forwarders;
    private final Map<String, ClassNode> classes = new TreeMap<>();

    final List<Finding> findings = new ArrayList<>();
    final Set<String> usedDeclarations = new TreeSet<>();
    final Set<String> usedAllowances = new TreeSet<>();
    /** Every project class found to reach Jackson. */
    final Set<String> reached = new TreeSet<>();
    /** Site -> the payload types found there (for the test's report). */
    final Map<String, Set<String>> payloads = new TreeMap<>();
    int sinkCalls;

    /**
     * @param registered   binary names of the classes registered for reflection
     * @param declarations site or component -> what it holds, for the ones whose type the bytecode does not show
     * @param allowedCalls "class#method -> Owner.name" -> why that forbidden call is fine
     * @param forwarders   project methods whose callers' arguments are payloads too
     */
    NativeImageScanner(ClassLoader loader, Set<String> registered, Map<String, Declaration> declarations,
                       Map<String, String> allowedCalls, List<Forwarder> forwarders) {
        this.loader = loader;
        this.registered = registered;
        this.declarations = declarations;
        this.allowedCalls = allowedCalls;
        this.forwarders = forwarders;
    }

    void add(byte[] classFile) {
        ClassNode node = new ClassNode();
        new ClassReader(classFile).accept(node, 0);
        classes.put(node.name, node);
    }

    int classCount() {
        return classes.size();
    }

    List<Finding> scan() {
        for (ClassNode node : classes.values()) {
            for (MethodNode method : node.methods) {
                if (method.instructions.size() > 0) {
                    scanMethod(node, method);
                }
            }
            Optional<MethodNode> clinit = node.methods.stream().filter(m -> m.name.equals("<clinit>")).findFirst();
            clinit.ifPresent(m -> scanClassInit(node, m));
        }
        return findings;
    }

    // ---- payloads ------------------------------------------------------------------------------------------------

    private void scanMethod(ClassNode owner, MethodNode method) {
        Frame<SourceValue>[] frames = frames(owner, method);
        String where = binary(owner.name) + "#" + method.name;
        for (int i = 0; i < method.instructions.size(); i++) {
            AbstractInsnNode insn = method.instructions.get(i);
            if (frames[i] == null) {
                continue; // unreachable code
            }
            if (insn instanceof MethodInsnNode call) {
                forbidden(where, call.owner, call.name);
                for (Sink sink : sinks(call)) {
                    sinkCalls++;
                    int args = Type.getArgumentTypes(call.desc).length;
                    Frame<SourceValue> frame = frames[i];
                    SourceValue value = frame.getStack(frame.getStackSize() - args + sink.argument());
                    String site = where + " -> " + sink.label();
                    Context context = new Context(owner, method, frames);
                    for (java.lang.reflect.Type type : resolve(context, value, sink.kind() == Kind.TARGET_TYPE, new HashSet<>())) {
                        if (sink.kind() == Kind.TARGET_TYPE) {
                            checkTarget(type, site);
                        } else {
                            check(type, site, new HashSet<>());
                        }
                    }
                }
            } else if (insn instanceof InvokeDynamicInsnNode indy) {
                for (Object argument : indy.bsmArgs) {
                    if (argument instanceof Handle handle) {
                        forbidden(where, handle.getOwner(), handle.getName());
                    }
                }
            } else if (insn instanceof LdcInsnNode ldc && ldc.cst instanceof Handle handle) {
                forbidden(where, handle.getOwner(), handle.getName());
            } else if (insn.getOpcode() == Opcodes.ARETURN && isExtensionsOfAnError(owner, method)) {
                // DuctorException.extensions() becomes the problem document's extension members.
                Frame<SourceValue> frame = frames[i];
                String site = where + " -> return";
                sinkCalls++;
                for (java.lang.reflect.Type type : resolve(new Context(owner, method, frames),
                        frame.getStack(frame.getStackSize() - 1), false, new HashSet<>())) {
                    check(type, site, new HashSet<>());
                }
            }
        }
    }

    private List<Sink> sinks(MethodInsnNode call) {
        List<Sink> found = new ArrayList<>();
        for (Sink sink : PROJECT_SINKS) {
            if (sink.owner().equals(call.owner) && sink.name().equals(call.name)
                    && Type.getArgumentTypes(call.desc).length > sink.argument()) {
                found.add(sink);
            }
        }
        Type[] params = Type.getArgumentTypes(call.desc);
        String simple = simpleName(call.owner) + "." + call.name;
        for (Forwarder forwarder : forwarders) {
            if (forwarder.owner().equals(binary(call.owner)) && forwarder.method().equals(call.name)
                    && params.length > forwarder.argument()) {
                found.add(new Sink(call.owner, call.name, Kind.VALUE, forwarder.argument(), simple + "#" + forwarder.argument()));
            }
        }
        if (MAPPERS.contains(call.owner) && params.length > 0) {
            if (WRITES.contains(call.name) || call.name.equals("convertValue")) {
                int argument = call.name.equals("convertValue") ? 0 : params.length - 1;
                found.add(new Sink(call.owner, call.name, Kind.VALUE, argument, simple));
            }
            if (READS.contains(call.name) && TYPE_DESCRIPTORS.contains(params[params.length - 1].getDescriptor())) {
                found.add(new Sink(call.owner, call.name, Kind.TARGET_TYPE, params.length - 1, simple));
            }
        }
        if (call.owner.equals("com/fasterxml/jackson/databind/node/ObjectNode") && call.name.equals("putPOJO")
                || call.owner.equals("com/fasterxml/jackson/databind/node/JsonNodeFactory") && call.name.equals("pojoNode")
                || call.owner.equals("com/fasterxml/jackson/databind/node/POJONode") && call.name.equals("<init>")) {
            found.add(new Sink(call.owner, call.name, Kind.VALUE, params.length - 1, simple));
        }
        boolean firstIsObject = params.length > 0 && params[0].getDescriptor().equals("Ljava/lang/Object;");
        if (firstIsObject && (call.owner.equals(RESPONSE) && (call.name.equals("ok") || call.name.equals("accepted"))
                || call.owner.equals(RESPONSE_BUILDER) && call.name.equals("entity"))) {
            found.add(new Sink(call.owner, call.name, Kind.VALUE, 0, simple));
        }
        // Whatever an error is built with may end up among its problem document's extension members.
        if (call.name.equals("<init>") && isSubclassOf(call.owner, DUCTOR_EXCEPTION)) {
            for (int p = 0; p < params.length; p++) {
                if (isContainer(params[p])) {
                    found.add(new Sink(call.owner, call.name, Kind.VALUE, p, simple + "#" + p));
                }
            }
        }
        return found;
    }

    private boolean isExtensionsOfAnError(ClassNode owner, MethodNode method) {
        return method.name.equals("extensions") && method.desc.equals("()Ljava/util/Map;")
                && (owner.name.equals(DUCTOR_EXCEPTION) || isSubclassOf(owner.name, DUCTOR_EXCEPTION));
    }

    /** A parameter type that can carry anything: Object, a Map, a Collection. */
    private boolean isContainer(Type type) {
        if (type.getSort() != Type.OBJECT) {
            return false;
        }
        if (type.getInternalName().equals("java/lang/Object")) {
            return true;
        }
        Class<?> c = load(type.getInternalName());
        return c != null && (Map.class.isAssignableFrom(c) || Collection.class.isAssignableFrom(c));
    }

    private record Context(ClassNode owner, MethodNode method, Frame<SourceValue>[] frames) {
        Frame<SourceValue> frameAt(AbstractInsnNode insn) {
            return frames[method.instructions.indexOf(insn)];
        }
    }

    /** A class literal in a deserialisation target position. */
    private record Literal(Class<?> type) implements java.lang.reflect.Type {
    }

    /** A value whose type is Object, or unknown. */
    private record Unknown(String what) implements java.lang.reflect.Type {
    }

    private Set<java.lang.reflect.Type> resolve(Context context, SourceValue value, boolean target, Set<AbstractInsnNode> seen) {
        Set<java.lang.reflect.Type> types = new LinkedHashSet<>();
        if (value.insns.isEmpty()) {
            types.add(new Unknown("a value with no traceable source"));
        }
        for (AbstractInsnNode insn : value.insns) {
            if (!seen.add(insn)) {
                continue;
            }
            types.addAll(resolve(context, insn, target, seen));
        }
        return types;
    }

    private Set<java.lang.reflect.Type> resolve(Context context, AbstractInsnNode insn, boolean target, Set<AbstractInsnNode> seen) {
        Frame<SourceValue> frame = context.frameAt(insn);
        switch (insn.getOpcode()) {
            case Opcodes.ACONST_NULL:
                return Set.of();
            case Opcodes.ALOAD: {
                int local = ((VarInsnNode) insn).var;
                SourceValue stored = frame.getLocal(local);
                if (stored.insns.isEmpty()) {
                    return Set.of(parameterType(context, local));
                }
                Set<java.lang.reflect.Type> types = new LinkedHashSet<>();
                for (AbstractInsnNode store : stored.insns) {
                    if (store.getOpcode() == Opcodes.ASTORE && seen.add(store)) {
                        Frame<SourceValue> before = context.frameAt(store);
                        types.addAll(resolve(context, before.getStack(before.getStackSize() - 1), target, seen));
                    } else if (store.getOpcode() != Opcodes.ASTORE) {
                        types.add(new Unknown("local " + local + " set by opcode " + store.getOpcode()));
                    }
                }
                return types;
            }
            case Opcodes.DUP:
            case Opcodes.DUP_X1:
            case Opcodes.DUP_X2:
                return resolve(context, frame.getStack(frame.getStackSize() - 1), target, seen);
            case Opcodes.CHECKCAST:
            case Opcodes.NEW: {
                Class<?> c = load(((TypeInsnNode) insn).desc);
                return Set.of(c == null ? new Unknown(((TypeInsnNode) insn).desc) : c);
            }
            case Opcodes.LDC: {
                Object constant = ((LdcInsnNode) insn).cst;
                if (constant instanceof Type t && t.getSort() == Type.OBJECT) {
                    Class<?> c = load(t.getInternalName());
                    return Set.of(target ? new Literal(c) : Class.class);
                }
                return Set.of(constant.getClass());
            }
            case Opcodes.GETFIELD:
            case Opcodes.GETSTATIC: {
                FieldInsnNode field = (FieldInsnNode) insn;
                return Set.of(fieldType(field));
            }
            case Opcodes.INVOKEVIRTUAL:
            case Opcodes.INVOKESTATIC:
            case Opcodes.INVOKEINTERFACE:
            case Opcodes.INVOKESPECIAL: {
                MethodInsnNode call = (MethodInsnNode) insn;
                if (isCollectionFactory(call)) {
                    // Map.of("k", v, ...), List.of(a, b): the arguments are what gets serialised.
                    Set<java.lang.reflect.Type> types = new LinkedHashSet<>();
                    int args = Type.getArgumentTypes(call.desc).length;
                    for (int a = 0; a < args; a++) {
                        types.addAll(resolve(context, frame.getStack(frame.getStackSize() - args + a), target, seen));
                    }
                    return types;
                }
                return Set.of(returnType(call));
            }
            default: {
                if (insn instanceof InvokeDynamicInsnNode indy) {
                    Class<?> c = erased(Type.getReturnType(indy.desc));
                    return Set.of(c == null ? new Unknown(indy.desc) : c);
                }
                return Set.of(new Unknown("opcode " + insn.getOpcode()));
            }
        }
    }

    private static boolean isCollectionFactory(MethodInsnNode call) {
        return Set.of("java/util/Map", "java/util/List", "java/util/Set").contains(call.owner)
                && Set.of("of", "entry").contains(call.name)
                && Stream.of(Type.getArgumentTypes(call.desc)).noneMatch(t -> t.getSort() == Type.ARRAY);
    }

    private java.lang.reflect.Type parameterType(Context context, int local) {
        boolean isStatic = (context.method().access & Opcodes.ACC_STATIC) != 0;
        if (!isStatic && local == 0) {
            Class<?> self = load(context.owner().name);
            return self == null ? new Unknown("this") : self;
        }
        Type[] params = Type.getArgumentTypes(context.method().desc);
        int slot = isStatic ? 0 : 1;
        for (int p = 0; p < params.length; p++) {
            if (slot == local) {
                Executable executable = executable(context.owner().name, context.method().name, context.method().desc);
                if (executable != null && executable.getGenericParameterTypes().length == params.length) {
                    return executable.getGenericParameterTypes()[p];
                }
                Class<?> c = erased(params[p]);
                return c == null ? new Unknown(params[p].getDescriptor()) : c;
            }
            slot += params[p].getSize();
        }
        return new Unknown("local " + local + " of " + context.method().name + " (a caught exception?)");
    }

    private java.lang.reflect.Type fieldType(FieldInsnNode insn) {
        for (Class<?> c = load(insn.owner); c != null; c = c.getSuperclass()) {
            try {
                Field field = c.getDeclaredField(insn.name);
                return usable(field.getGenericType(), field.getType());
            } catch (NoSuchFieldException | LinkageError notHere) {
                // declared higher up
            }
        }
        Class<?> c = erased(Type.getType(insn.desc));
        return c == null ? new Unknown(insn.desc) : c;
    }

    private java.lang.reflect.Type returnType(MethodInsnNode call) {
        Executable executable = executable(call.owner, call.name, call.desc);
        if (executable instanceof java.lang.reflect.Method method) {
            return usable(method.getGenericReturnType(), method.getReturnType());
        }
        Class<?> c = erased(Type.getReturnType(call.desc));
        return c == null ? new Unknown(call.desc) : c;
    }

    /** A generic type unless its type variables are unbound here ({@code Map<K, V>}): then the erased class. */
    private static java.lang.reflect.Type usable(java.lang.reflect.Type generic, Class<?> erased) {
        return hasTypeVariable(generic) ? erased : generic;
    }

    private static boolean hasTypeVariable(java.lang.reflect.Type type) {
        if (type instanceof TypeVariable<?>) {
            return true;
        }
        if (type instanceof ParameterizedType p) {
            return Stream.of(p.getActualTypeArguments()).anyMatch(NativeImageScanner::hasTypeVariable);
        }
        if (type instanceof WildcardType w) {
            return Stream.of(w.getUpperBounds()).anyMatch(NativeImageScanner::hasTypeVariable);
        }
        if (type instanceof GenericArrayType a) {
            return hasTypeVariable(a.getGenericComponentType());
        }
        return false;
    }

    private Executable executable(String owner, String name, String desc) {
        Deque<Class<?>> todo = new ArrayDeque<>();
        Class<?> start = load(owner);
        if (start != null) {
            todo.add(start);
        }
        Set<Class<?>> visited = new HashSet<>();
        while (!todo.isEmpty()) {
            Class<?> c = todo.poll();
            if (!visited.add(c)) {
                continue;
            }
            try {
                if (name.equals("<init>")) {
                    for (var constructor : c.getDeclaredConstructors()) {
                        if (Type.getConstructorDescriptor(constructor).equals(desc)) {
                            return constructor;
                        }
                    }
                    return null;
                }
                for (var method : c.getDeclaredMethods()) {
                    if (method.getName().equals(name) && Type.getMethodDescriptor(method).equals(desc)) {
                        return method;
                    }
                }
            } catch (LinkageError unresolvable) {
                return null;
            }
            if (c.getSuperclass() != null) {
                todo.add(c.getSuperclass());
            }
            todo.addAll(List.of(c.getInterfaces()));
        }
        return null;
    }

    /** A deserialisation target: a class literal, a TypeReference (a field of one, or an anonymous subclass). */
    private void checkTarget(java.lang.reflect.Type type, String site) {
        if (type instanceof Literal literal) {
            check(literal.type(), site, new HashSet<>());
        } else if (type instanceof ParameterizedType p && p.getRawType() == com.fasterxml.jackson.core.type.TypeReference.class) {
            check(p.getActualTypeArguments()[0], site, new HashSet<>());
        } else if (type instanceof Class<?> c && c != com.fasterxml.jackson.core.type.TypeReference.class
                && com.fasterxml.jackson.core.type.TypeReference.class.isAssignableFrom(c)
                && c.getGenericSuperclass() instanceof ParameterizedType p) {
            check(p.getActualTypeArguments()[0], site, new HashSet<>());
        } else {
            opaque(site, "deserialises to a type chosen at run time (" + type.getTypeName() + ")");
        }
    }

    /** Checks one type that Jackson will (de)serialise, and everything it contains. */
    private void check(java.lang.reflect.Type type, String site, Set<Class<?>> seen) {
        payloads.computeIfAbsent(site, k -> new TreeSet<>()).add(type.getTypeName());
        if (type instanceof Unknown unknown) {
            opaque(site, unknown.what());
        } else if (type instanceof Literal literal) {
            check(literal.type(), site, seen);
        } else if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            if (isProject(raw)) {
                check(raw, site, seen);
            }
            for (java.lang.reflect.Type argument : p.getActualTypeArguments()) {
                check(argument, site, seen);
            }
        } else if (type instanceof WildcardType w) {
            for (java.lang.reflect.Type bound : w.getUpperBounds()) {
                check(bound, site, seen);
            }
        } else if (type instanceof GenericArrayType a) {
            check(a.getGenericComponentType(), site, seen);
        } else if (type instanceof TypeVariable<?> v) {
            opaque(site, "type variable " + v.getName());
        } else if (type instanceof Class<?> c) {
            checkClass(c, site, seen);
        }
    }

    private void checkClass(Class<?> c, String site, Set<Class<?>> seen) {
        if (c.isArray()) {
            check(c.getComponentType(), site, seen);
            return;
        }
        if (c.isPrimitive() || com.fasterxml.jackson.databind.JsonNode.class.isAssignableFrom(c)) {
            return; // trees are written and read without reflection on application classes
        }
        if (c == Object.class || Map.class.isAssignableFrom(c) || Collection.class.isAssignableFrom(c)
                || c == Optional.class || c == Iterable.class) {
            opaque(site, "a " + c.getSimpleName() + " whose contents the bytecode does not show");
            return;
        }
        if (!isProject(c)) {
            if (!c.getName().startsWith("java.")) {
                opaque(site, "a library class, " + c.getName());
            }
            return; // String, numbers, java.time, UUID, ...: Jackson's own (de)serialisers
        }
        reached.add(c.getName());
        if (!registered.contains(c.getName())) {
            findings.add(new Finding(site, "unregistered", c.getName() + " reaches Jackson but is not registered for reflection"));
        }
        if (!seen.add(c) || c.isEnum()) {
            return;
        }
        if (c.isRecord()) {
            for (RecordComponent component : c.getRecordComponents()) {
                check(component.getGenericType(), c.getName() + "#" + component.getName(), seen);
            }
            return;
        }
        for (Class<?> k = c; k != null && isProject(k); k = k.getSuperclass()) {
            for (Field field : k.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
                    check(field.getGenericType(), c.getName() + "#" + field.getName(), seen);
                }
            }
        }
        for (java.lang.reflect.Method getter : c.getMethods()) {
            if (getter.getParameterCount() == 0 && !Modifier.isStatic(getter.getModifiers()) && isProject(getter.getDeclaringClass())
                    && (getter.getName().startsWith("get") || getter.getName().startsWith("is"))) {
                check(getter.getGenericReturnType(), c.getName() + "#" + getter.getName(), seen);
            }
        }
    }

    private void opaque(String site, String what) {
        Declaration declaration = declarations.get(site);
        if (declaration == null) {
            findings.add(new Finding(site, "opaque", what + ": declare what it holds (and register those types)"));
            return;
        }
        if (usedDeclarations.add(site)) {
            for (Class<?> type : declaration.types()) {
                check(type, site, new HashSet<>());
            }
        }
    }

    // ---- forbidden calls and class initialisation ----------------------------------------------------------------

    private void forbidden(String where, String owner, String name) {
        Set<String> names = FORBIDDEN.get(owner);
        if (names == null || !(names.contains("*") || names.contains(name))) {
            return;
        }
        String key = where + " -> " + simpleName(owner) + "." + name;
        if (allowedCalls.containsKey(key)) {
            usedAllowances.add(key);
        } else {
            findings.add(new Finding(key, "forbidden-call", "needs native-image registration or a different approach;"
                    + " if it is fine, allow it with the reason"));
        }
    }

    /** The static initialiser and the project code it calls directly (static methods and constructors), transitively. */
    private void scanClassInit(ClassNode owner, MethodNode clinit) {
        Deque<String[]> todo = new ArrayDeque<>();
        Set<String> visited = new HashSet<>();
        todo.add(new String[] {owner.name, clinit.name, clinit.desc});
        while (!todo.isEmpty()) {
            String[] next = todo.poll();
            if (!visited.add(String.join(" ", next))) {
                continue;
            }
            ClassNode node = classes.get(next[0]);
            MethodNode method = node == null ? null : node.methods.stream()
                    .filter(m -> m.name.equals(next[1]) && m.desc.equals(next[2])).findFirst().orElse(null);
            if (method == null) {
                continue;
            }
            for (AbstractInsnNode insn : method.instructions) {
                if (!(insn instanceof MethodInsnNode call)) {
                    continue;
                }
                Set<String> names = NOT_AT_CLASS_INIT.get(call.owner);
                if (names != null && (names.contains("*") || names.contains(call.name))) {
                    String via = next[1].equals("<clinit>") && next[0].equals(owner.name) ? "" : " (via " + binary(next[0]) + "#" + next[1] + ")";
                    findings.add(new Finding(binary(owner.name) + "#<clinit>", "static-init", simpleName(call.owner) + "."
                            + call.name + via + " would run while the image is built and freeze its result into the executable"));
                }
                if (classes.containsKey(call.owner) && (call.getOpcode() == Opcodes.INVOKESTATIC || call.name.equals("<init>"))) {
                    todo.add(new String[] {call.owner, call.name, call.desc});
                }
            }
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Frame<SourceValue>[] frames(ClassNode owner, MethodNode method) {
        try {
            return new Analyzer<>(new SourceInterpreter()).analyze(owner.name, method);
        } catch (AnalyzerException e) {
            throw new IllegalStateException("cannot analyse " + owner.name + "#" + method.name + method.desc, e);
        }
    }

    private boolean isSubclassOf(String internalName, String superName) {
        Class<?> c = load(internalName);
        Class<?> s = load(superName);
        return c != null && s != null && c != s && s.isAssignableFrom(c);
    }

    private static boolean isProject(Class<?> c) {
        return c.getName().startsWith("dev.ductor.");
    }

    private Class<?> erased(Type type) {
        return switch (type.getSort()) {
            case Type.OBJECT -> load(type.getInternalName());
            case Type.ARRAY -> {
                Class<?> element = erased(type.getElementType());
                yield element == null ? null : element.arrayType();
            }
            case Type.VOID -> void.class;
            case Type.BOOLEAN -> boolean.class;
            case Type.CHAR -> char.class;
            case Type.BYTE -> byte.class;
            case Type.SHORT -> short.class;
            case Type.INT -> int.class;
            case Type.FLOAT -> float.class;
            case Type.LONG -> long.class;
            case Type.DOUBLE -> double.class;
            default -> null;
        };
    }

    private final Map<String, Optional<Class<?>>> loaded = new LinkedHashMap<>();

    /** Loads without initialising: nothing of the application runs. */
    private Class<?> load(String internalName) {
        return loaded.computeIfAbsent(internalName, name -> {
            try {
                return Optional.of(Class.forName(name.replace('/', '.'), false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    private static String binary(String internalName) {
        return internalName.replace('/', '.');
    }

    private static String simpleName(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1).replaceFirst("^.*\\$", "");
    }
}
