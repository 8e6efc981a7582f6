// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(symbol-dce)' --split-input-file | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(builtin.module(symbol-dce))' --split-input-file | filecheck %s --check-prefix=NESTED

// Private symbols nothing live refers to are erased, transitively; public ones stay.
// CHECK-LABEL: module attributes {test.simple}
// CHECK-NEXT: func.func @public()
// CHECK-NEXT: call @live()
// CHECK: func.func private @live()
// CHECK-NOT: func.func private @dead
module attributes {test.simple} {
  func.func @public() {
    func.call @live() : () -> ()
    return
  }
  func.func private @live() {
    return
  }
  func.func private @dead() {
    func.call @dead2() : () -> ()
    return
  }
  func.func private @dead2() {
    func.call @dead() : () -> ()
    return
  }
}

// -----

// A nested public module keeps its public symbols; its unused private ones go.
// CHECK-LABEL: module attributes {test.nested}
// CHECK-NEXT: module @inner
// CHECK-NEXT: func.func @keep()
// CHECK-NOT: @drop
module attributes {test.nested} {
  module @inner {
    func.func @keep() {
      return
    }
    func.func private @drop() {
      return
    }
  }
}

// -----

// A private nested module nobody refers to is erased; one that is referred to keeps its public
// symbols and the private ones referred to.
// CHECK-LABEL: module attributes {test.nested_ref}
// CHECK-NOT: @a
// CHECK: module @b attributes {sym_visibility = "private"}
// CHECK-NEXT: func.func @x()
// CHECK: func.func private @y()
// CHECK-NOT: @z
// CHECK: func.func @user()
module attributes {test.nested_ref} {
  module @a attributes {sym_visibility = "private"} {
    func.func @x() {
      return
    }
  }
  module @b attributes {sym_visibility = "private"} {
    func.func @x() {
      return
    }
    func.func private @y() {
      return
    }
    func.func private @z() {
      return
    }
  }
  func.func @user() {
    "test.use"() {ref = @b::@y} : () -> ()
    return
  }
}

// -----

// `nested` symbols go from a table hidden from above (the top-level module, a private module);
// run on the nested modules alone, a public or `nested` module is visible from above and keeps
// its `nested` symbols, while a private one loses them; public symbols always stay.
// CHECK-LABEL: module attributes {test.visibility}
// CHECK-NEXT: module @public_module {
// CHECK-NEXT: }
// CHECK-NEXT: module @nested_module attributes {sym_visibility = "nested"} {
// CHECK-NEXT: }
// CHECK-NEXT: module @private_module attributes {sym_visibility = "private"} {
// CHECK-NEXT: func.func @public_function()
// NESTED-LABEL: module attributes {test.visibility}
// NESTED-NEXT: module @public_module {
// NESTED-NEXT: func.func nested @nested_function()
// NESTED-NEXT: }
// NESTED-NEXT: module @nested_module attributes {sym_visibility = "nested"} {
// NESTED-NEXT: func.func nested @nested_function()
// NESTED-NEXT: }
// NESTED-NEXT: module @private_module attributes {sym_visibility = "private"} {
// NESTED-NEXT: func.func @public_function()
module attributes {test.visibility} {
  module @public_module {
    func.func nested @nested_function()
    func.func private @private_function()
  }
  module @nested_module attributes {sym_visibility = "nested"} {
    func.func nested @nested_function()
  }
  module @private_module attributes {sym_visibility = "private"} {
    func.func nested @nested_function()
    func.func @public_function() {
      return
    }
  }
  "test.user"() {uses = [@nested_module, @private_module]} : () -> ()
}

// -----

// A reference resolves in the symbol table holding the op that makes it, never in an
// enclosing one: the outer private @outer is dead though the inner module names @outer.
// Run on the inner module alone, the outer symbols are out of reach and stay.
// CHECK-LABEL: module attributes {test.scopes}
// CHECK-NOT: @outer
// CHECK: module @inner
// NESTED-LABEL: module attributes {test.scopes}
// NESTED-NEXT: func.func private @outer()
// NESTED-NEXT: module @inner
module attributes {test.scopes} {
  func.func private @outer()
  module @inner {
    func.func @user() {
      "test.use"() {ref = @outer} : () -> ()
      return
    }
  }
}

// -----

// Symbol tables nested in other ops are reached through them: a private symbol called from a
// live one stays, an unused `nested` one goes, and so does a private symbol of a module inside
// a function body. Each nested module (not a symbol) is hidden from above.
// CHECK-LABEL: module attributes {test.in_regions}
// CHECK: "foo.two_regions"() ({
// CHECK-NEXT: {{(builtin.)?}}module {
// CHECK-NEXT: func.func private @called()
// CHECK: func.func @main()
// CHECK: func.func @f()
// CHECK-NEXT: "foo.two_regions"() ({
// CHECK-NEXT: {{(builtin.)?}}module @deep {
// CHECK-NEXT: }
// NESTED-LABEL: module attributes {test.in_regions}
// NESTED: func.func nested @nested()
module attributes {test.in_regions} {
  "foo.two_regions"() ({
    builtin.module {
      func.func nested @nested() {
        return
      }
      func.func private @called() {
        return
      }
      func.func @main() {
        call @called() : () -> ()
        return
      }
    }
  }, {
  }) : () -> ()
  func.func @f() {
    "foo.two_regions"() ({
      builtin.module @deep {
        func.func private @x()
      }
    }, {
    }) : () -> ()
    return
  }
}
