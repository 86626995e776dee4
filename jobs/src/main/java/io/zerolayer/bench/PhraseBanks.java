package io.zerolayer.bench;

/**
 * The phrase banks the benchmark's workloads write their requests from: products and their FAQs,
 * ticket phrases and labels, paper and contract sentences and sections, questions and fields.
 */
final class PhraseBanks {
    private PhraseBanks() {}

    static final String[] PRODUCTS = {
        "Aria headphones",
        "Brisk blender",
        "Cirrus thermostat",
        "Delta charger",
        "Ember kettle",
        "Fjord backpack",
        "Glide scooter",
        "Halo smart lamp"
    };
    static final String[] FAQ = {
        "The {product} ships within two working days of the order.",
        "Returns of the {product} are accepted within thirty days in the original packaging.",
        "The warranty of the {product} covers defects for two years from delivery.",
        "To reset the {product}, hold the power button for ten seconds.",
        "The {product} is charged through the USB-C port in about two hours.",
        "Spare parts for the {product} are sold in the accessories section of the shop.",
        "Refunds for the {product} reach the original payment method within five days.",
        "The {product} works with the companion app on Android and iOS.",
        "Cleaning the {product} with water or solvents voids the warranty.",
        "A damaged {product} must be reported within forty-eight hours of delivery.",
        "The {product} can be delivered to a pick-up point instead of a home address.",
        "Firmware updates for the {product} install automatically overnight."
    };
    static final String TRIAGE_LABELS =
            "refund request, shipping delay, damaged item, account access, product question";
    static final String[] CHANNELS = {"email", "chat", "phone", "web"};
    static final String[] TICKET = {
        "I ordered a pair of headphones two weeks ago and they still have not arrived.",
        "The tracking page has shown the same depot for six days.",
        "My package arrived with the box crushed and the screen cracked.",
        "I would like my money back for the blender, it stopped working after a week.",
        "I cannot sign in since the password reset link expired.",
        "The authenticator code is rejected every time I try to log in.",
        "Does the thermostat work with a two-wire heating system?",
        "Can I return an item that I bought on sale?",
        "The charger gets very hot and smells of burnt plastic.",
        "I was charged twice for the same order last Tuesday.",
        "The courier left the parcel at the wrong address.",
        "Please cancel my subscription and refund the last month.",
        "Which size of filter fits the model from last year?",
        "My account shows an order I never placed.",
        "The replacement part you sent is the wrong colour.",
        "How long does the battery last on a full charge?",
        "The app crashes whenever I open my order history.",
        "I need an invoice with my company's tax number on it.",
        "The delivery date moved three times this week.",
        "Half of the screws were missing from the shelf kit."
    };
    static final String[] QUESTIONS = {
        "When will the order arrive?",
        "Is the item still under warranty?",
        "How do I reset my password?",
        "Can the charge be refunded?"
    };
    static final String[] PAPER = {
        "We measured the thermal conductivity of suspended graphene with Raman spectroscopy.",
        "The conductivity decreased with temperature, consistent with phonon scattering.",
        "Samples were prepared by mechanical exfoliation onto patterned silicon substrates.",
        "Each measurement was repeated on twelve flakes between 300 K and 500 K.",
        "The results agree with first-principles calculations within ten percent.",
        "Wrinkled samples showed conductivities up to twenty percent lower than flat ones.",
        "Electrolyte additives suppressed dendrite growth at low temperatures.",
        "Cells retained ninety percent of their capacity after five hundred cycles.",
        "Protein folding intermediates were resolved with single-molecule fluorescence.",
        "The folding rate depends strongly on the ionic strength of the buffer.",
        "We propose a kinetic model with two parallel pathways and one trap state.",
        "Statistical significance was assessed with a two-sided permutation test.",
        "Limitations include the small sample size and the single laboratory setting.",
        "Future work will extend the method to encapsulated heterostructures.",
        "Data and analysis scripts are available from the authors on request.",
        "The apparatus was calibrated against a reference photodetector before each run.",
        "Error bars show one standard deviation over independent measurements.",
        "These findings support the use of the material in heat spreaders for electronics."
    };
    static final String[] PAPER_SECTIONS = {
        "abstract",
        "introduction",
        "background",
        "methods",
        "materials",
        "results",
        "analysis",
        "discussion",
        "limitations",
        "conclusion",
        "acknowledgements",
        "references",
        "supplementary",
        "data-availability"
    };
    static final String[] CONTRACT = {
        "The Customer shall pay each undisputed invoice within thirty days of receipt.",
        "Late payments bear interest at one percent per month until paid.",
        "Either party may terminate this Agreement on ninety days written notice.",
        "Neither party is liable for indirect or consequential damages.",
        "Liability is limited to the fees paid in the twelve months before the claim.",
        "This Agreement is governed by the laws of the State of New York.",
        "Each party shall keep the other party's Confidential Information secret.",
        "Notices must be sent to legal@example.com or by registered mail.",
        "The Supplier shall maintain insurance of at least two million dollars.",
        "Payments are made to the account with IBAN DE89370400440532013000.",
        "The Services are described in Schedule A and may change by written amendment.",
        "All intellectual property created under this Agreement vests in the Customer.",
        "Force majeure suspends obligations for as long as the event lasts.",
        "Disputes are settled by arbitration in London under the LCIA rules."
    };
    static final String[] CONTRACT_SECTIONS = {
        "definitions",
        "services",
        "payment",
        "term",
        "termination",
        "liability",
        "confidentiality",
        "general"
    };
    static final String CONTRACT_FIELDS =
            "payment terms, termination notice, liability cap, governing law";
    static final String[] CONTRACT_QUESTIONS = {
        "When must invoices be paid?",
        "How can the agreement be terminated?",
        "What is the cap on liability?",
        "Which law governs the agreement?"
    };
}
